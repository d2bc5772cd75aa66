import Graphics
import Platform
import XCTest

/// Reference images kept in the repository: compare, and on a mismatch write the actual
/// picture and a diff next to a failure report. Set BOARDWALK_RECORD=1 to (re)write
/// references after looking at them.
public enum ReferenceImages {
    public struct Mismatch: Error, CustomStringConvertible {
        public let description: String
    }

    /// How many pixels of one 16x16 patch may differ: a changed digit or letter of the
    /// smallest text differs in more (`ReferenceImageTests`).
    public static let patchLimit = 6

    /// Why `actual` does not match `expected`, or nil when it does: at most
    /// `allowedFraction` of the pixels off by more than `tolerance` in a channel, and no
    /// patch with more than `patchLimit` of them (so a changed glyph is never let through).
    public static func mismatch(_ actual: Surface, _ expected: Surface, tolerance: Int = 8,
                                allowedFraction: Double = 0.002) -> (ImageComparison, String)? {
        let comparison = ImageComparison(actual.copied(as: .argb8888), expected, tolerance: tolerance)
        let allowed = Int(Double(actual.width * actual.height) * allowedFraction)
        if comparison.differingPixels > allowed {
            return (comparison, "\(comparison.differingPixels) pixels differ by more than \(tolerance) (max \(comparison.maxChannelDifference))")
        }
        if comparison.densestPatch > patchLimit {
            return (comparison, "\(comparison.densestPatch) pixels of one \(ImageComparison.patchSize)x\(ImageComparison.patchSize) patch differ by more than \(tolerance) (a changed glyph or detail; \(comparison.differingPixels) in all)")
        }
        return nil
    }

    /// Returns nil when `actual` matches the reference at `path` (`mismatch`).
    public static func check(_ actual: Surface, reference path: String, tolerance: Int = 8,
                             allowedFraction: Double = 0.002, failureDirectory: String) -> Mismatch? {
        let record = getenvString("BOARDWALK_RECORD") == "1"
        if record || !Files.exists(path) {
            if !record {
                return Mismatch(description: "no reference image at \(path); run with BOARDWALK_RECORD=1 to create it")
            }
            do {
                try Files.makeDirectories(Files.directoryName(path))
                try actual.writePNG(path)
            } catch {
                return Mismatch(description: "cannot write reference \(path): \(error)")
            }
            return nil
        }
        let expected: Surface
        do { expected = try Surface.loadPNG(path) } catch {
            return Mismatch(description: "cannot read reference: \(error)")
        }
        guard let (comparison, problem) = mismatch(actual, expected, tolerance: tolerance, allowedFraction: allowedFraction)
        else { return nil }
        let name = String(path.split(separator: "/").last ?? "image").replacingSuffix(".png", with: "")
        try? Files.makeDirectories(failureDirectory)
        let actualPath = "\(failureDirectory)/\(name).actual.png"
        let diffPath = "\(failureDirectory)/\(name).diff.png"
        try? actual.writePNG(actualPath)
        try? comparison.diff?.writePNG(diffPath)
        return Mismatch(description: "\(path): \(problem); actual: \(actualPath), diff: \(diffPath)")
    }
}

extension String {
    func replacingSuffix(_ suffix: String, with other: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + other : self
    }
}

#if canImport(Glibc)
import Glibc
#endif

func getenvString(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
}

/// Where a test file's reference images live, and where pictures for people go: a test in
/// Tests/X/Y.swift keeps its references in Tests/X/References; the repo's out/ gets every
/// checked frame (out/shots) and every failure's actual and diff pictures (out/test-failures).
public struct TestPaths {
    public let testDirectory: String
    public let repoDirectory: String

    public init(file: StaticString) {
        testDirectory = Files.directoryName("\(file)")
        repoDirectory = Files.directoryName(Files.directoryName(testDirectory))
    }

    public var references: String { testDirectory + "/References" }
    public var fixtures: String { testDirectory + "/Fixtures" }
    public var out: String { repoDirectory + "/out" }
    public var data: String { repoDirectory + "/data" }
}

/// Compares a picture with References/NAME.png beside the calling test file (see
/// `ReferenceImages.check`); also writes it to out/shots/NAME.png so a person can look.
public func assertMatchesReference(_ surface: Surface, _ name: String, tolerance: Int = 8,
                                   allowedFraction: Double = 0.002,
                                   file: StaticString = #filePath, line: UInt = #line) {
    let paths = TestPaths(file: file)
    try? Files.makeDirectories(paths.out + "/shots")
    try? surface.writePNG(paths.out + "/shots/\(name).png")
    if let mismatch = ReferenceImages.check(surface, reference: "\(paths.references)/\(name).png",
                                            tolerance: tolerance, allowedFraction: allowedFraction,
                                            failureDirectory: paths.out + "/test-failures") {
        XCTFail(mismatch.description, file: file, line: line)
    }
}
