import Foundation
import XCTest
import Platform

/// A fresh directory under /tmp, removed when the test ends.
public func makeTemporaryDirectory(_ test: XCTestCase) throws -> String {
    let path = NSTemporaryDirectory() + "boardwalk-test-" + UUID().uuidString
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
}

public func writeFile(_ path: String, _ text: String) throws {
    try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                            withIntermediateDirectories: true)
    try text.write(toFile: path, atomically: false, encoding: .utf8)
}

public func readFile(_ path: String) -> String? {
    try? String(contentsOfFile: path, encoding: .utf8)
}

/// Captures log lines for the duration of `body`.
public func capturingLog(_ body: () throws -> Void) rethrows -> [String] {
    var lines: [String] = []
    let oldSink = Log.sink
    let oldInterval = Log.repeatInterval
    Log.sink = { lines.append($0) }
    Log.repeatInterval = 0
    defer {
        Log.sink = oldSink
        Log.repeatInterval = oldInterval
    }
    try body()
    return lines
}
