import XCTest
@testable import Graphics

/// Surfaces big enough to get their own mapping behave like heap ones: cleared, drawable,
/// counted in the census while alive and not after.
final class SurfaceMemoryTests: XCTestCase {
    func testSmallAndMappedSurfacesAreClearDrawableAndCounted() {
        for side in [16, 200] {  // 1 KB in the heap, 160 KB mapped
            let before = Surface.census
            do {
                let s = Surface(width: side, height: side, format: .argb8888)
                XCTAssertEqual(s.byteCount >= Surface.mappedThreshold, side == 200)
                XCTAssertEqual(s.pixel(x: side - 1, y: side - 1), .clear)
                Canvas(surface: s).fill(Rect(0, 0, Double(side), Double(side)), Color(hex: 0x3B82F6))
                XCTAssertEqual(s.pixel(x: side / 2, y: side / 2), Color(hex: 0x3B82F6))
                let copy = s.copied(as: .xrgb8888)
                XCTAssertEqual(copy.pixel(x: 0, y: side - 1), Color(hex: 0x3B82F6))
                XCTAssertEqual(Surface.census.count, before.count + 2)
                XCTAssertEqual(Surface.census.bytes, before.bytes + s.byteCount + copy.byteCount)
            }
            XCTAssertEqual(Surface.census.count, before.count)
            XCTAssertEqual(Surface.census.bytes, before.bytes)
        }
    }
}
