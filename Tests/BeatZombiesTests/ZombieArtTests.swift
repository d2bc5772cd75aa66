import Foundation
import Graphics
import Platform
import Synchronization
import UI
import TestSupport
import XCTest
@testable import BeatZombies

/// The built-in zombie art in data/zombies (drawn by tools/make-zombie-art.py): every kind
/// with the original's frame count and proportions, a hit pose, the lost panel's picture;
/// and each kind mid-walk and hit as reference images.
final class ZombieArtTests: XCTestCase {
    private let directory = TestPaths(file: #filePath).data + "/zombies"
    private let names = ["shambler", "hound", "runner", "hopper"]

    func testTheBuiltInSetHasEveryKindInTheOriginalsFramesAndProportions() {
        let (art, errors) = ZombieSprites.load(directory: directory)
        XCTAssertEqual(errors, [])
        XCTAssertNotNil(art.lostPicture)
        for kind in ZombieKind.all {
            guard let frames = art.frames[kind.index] else {
                XCTFail("kind \(kind.index) has no sheet")
                continue
            }
            XCTAssertEqual(frames.count, kind.frameCount, "kind \(kind.index)")
            let frame = frames[0]
            // In the original's proportions, at most twice the size in points.
            XCTAssertEqual(Double(frame.width) / Double(frame.height), kind.width / kind.height, accuracy: 0.02)
            XCTAssertLessThanOrEqual(Double(frame.width), kind.width * 2)
            XCTAssertGreaterThanOrEqual(Double(frame.width), kind.width)
            XCTAssertNotNil(art.hitFrames[kind.index], "kind \(kind.index) has a hit pose")
            // The walk moves: the middle frame is not the first.
            XCTAssertNotEqual(pixels(frames[0]), pixels(frames[kind.frameCount / 2]), "kind \(kind.index) walks")
        }
    }

    /// Each kind mid-walk and hit, on grass, at the size it has on an 800x480 lawn.
    func testEachKindMidWalkAndHit() {
        let (art, _) = ZombieSprites.load(directory: directory)
        for kind in ZombieKind.all {
            guard let frames = art.frames[kind.index], let hit = art.hitFrames[kind.index] else {
                XCTFail("kind \(kind.index)")
                continue
            }
            let width = Int(kind.width * 2), height = Int(kind.height)
            let picture = Surface(width: width, height: height, format: .xrgb8888)
            let canvas = Canvas(surface: picture)
            canvas.fill(Rect(0, 0, Double(width), Double(height)), Color(hex: 0x4E9A3A))
            canvas.drawImage(frames[kind.frameCount / 2], in: Rect(0, 0, kind.width, kind.height))
            canvas.drawImage(hit, in: Rect(kind.width, 0, kind.width, kind.height))
            assertMatchesReference(picture, "zombie-art-\(names[kind.index])")
        }
    }

    /// The art is read once per process and shared by every scene that asks for it.
    func testTheSetIsSharedBetweenScenes() {
        let first = ZombieSprites.shared(directory: directory).sprites
        let second = ZombieSprites.shared(directory: directory).sprites
        XCTAssertTrue(first.frames[0]![0] === second.frames[0]![0])
    }

    private func pixels(_ surface: Surface) -> [UInt8] {
        Array(UnsafeRawBufferPointer(start: surface.pixels, count: surface.stride * surface.height))
    }
}

/// The kiosk decodes the art on a background thread after its first frame; a scene made
/// later gets those very pixels, and one made meanwhile waits for them rather than reading
/// them twice.
final class ZombieArtWarmUpTests: XCTestCase {
    func testWarmUpOnAnotherThreadFillsTheSharedSet() throws {
        // A copy of the built-in set in a directory no other test has read.
        let data = try makeTemporaryDirectory(self)
        let source = TestPaths(file: #filePath).data + "/zombies"
        try FileManager.default.copyItem(atPath: source, toPath: data + "/zombies")
        let warmUp = try XCTUnwrap(GameDescriptor.beatZombies.warmUp)
        let done = expectation(description: "warm-up")
        let mainThread = pthread_self()
        let ranElsewhere = Mutex<Bool>(false)
        try runInBackground("test warm-up") {
            ranElsewhere.withLock { $0 = pthread_equal(pthread_self(), mainThread) == 0 }
            warmUp(data)
            done.fulfill()
        }
        // Asked at once, while the thread may still be reading: the same set either way.
        let meanwhile = ZombieSprites.shared(directory: data + "/zombies")
        wait(for: [done], timeout: 60)
        XCTAssertTrue(ranElsewhere.withLock { $0 }, "decoded off the calling thread")
        let later = ZombieSprites.shared(directory: data + "/zombies")
        let first = try XCTUnwrap(meanwhile.sprites.frames[0]?.first)
        XCTAssertTrue(later.sprites.frames[0]?.first === first, "one decoded copy, shared")
        XCTAssertEqual(later.errors, [])
        XCTAssertEqual(later.sprites.frames.count, 4)
    }
}
