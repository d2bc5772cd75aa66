import XCTest
@testable import Platform

final class JSONTests: XCTestCase {
    private func parseError(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONError? {
        do {
            let value = try JSONValue.parse(text)
            XCTFail("parsed \(value) from \(text.debugDescription)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    func testParsesEveryKindOfValue() throws {
        let value = try JSONValue.parse("""
            {"name": "zh", "count": 3, "ratio": -1.5e2, "ok": true, "no": false, "none": null,
             "list": [1, "two", [], {}], "nested": {"a": {"b": [0.25]}}}
            """)
        XCTAssertEqual(value["name"]?.string, "zh")
        XCTAssertEqual(value["count"]?.int, 3)
        XCTAssertEqual(value["ratio"]?.number, -150)
        XCTAssertEqual(value["ok"]?.bool, true)
        XCTAssertEqual(value["no"]?.bool, false)
        XCTAssertEqual(value["none"], .null)
        XCTAssertEqual(value["list"], .array([.number(1), .string("two"), .array([]), .object([:])]))
        XCTAssertEqual(value["nested"]?["a"]?["b"]?.array?.first?.number, 0.25)
        XCTAssertNil(value["missing"])
        XCTAssertNil(value["name"]?.int)
        XCTAssertEqual(try JSONValue.parse(" 42 "), .number(42))
        XCTAssertEqual(try JSONValue.parse("\"\""), .string(""))
    }

    func testIntOnlyForWholeNumbers() throws {
        XCTAssertEqual(try JSONValue.parse("7.0").int, 7)
        XCTAssertNil(try JSONValue.parse("7.5").int)
        XCTAssertNil(try JSONValue.parse("1e300").int)
    }

    func testStringsEscapesAndUnicode() throws {
        XCTAssertEqual(try JSONValue.parse(#""a\"b\\c\/d\b\f\n\r\t""#), .string("a\"b\\c/d\u{8}\u{C}\n\r\t"))
        XCTAssertEqual(try JSONValue.parse(#""\u732b\u0041""#), .string("猫A"))
        XCTAssertEqual(try JSONValue.parse(#""\ud83e\udddf""#), .string("🧟"))
        XCTAssertEqual(try JSONValue.parse("\"猫咪🐱\""), .string("猫咪🐱"))
        XCTAssertEqual(try JSONValue.parse("\u{FEFF}[1]"), .array([.number(1)]), "a byte order mark is skipped")
    }

    func testNumbersFollowTheGrammar() throws {
        XCTAssertEqual(try JSONValue.parse("0"), .number(0))
        XCTAssertEqual(try JSONValue.parse("-0.5"), .number(-0.5))
        XCTAssertEqual(try JSONValue.parse("1E+3"), .number(1000))
        for bad in ["01", "+1", ".5", "1.", "1e", "-", "0x10", "1e999", "NaN", "Infinity"] {
            XCTAssertNotNil(parseError(bad), bad)
        }
    }

    func testErrorsNameLineAndColumn() {
        let error = parseError("{\n  \"a\": 1,\n  \"b\": [1, 2,]\n}")
        XCTAssertEqual(error?.line, 3)
        XCTAssertEqual(error?.column, 14)
        XCTAssertEqual(error?.message, "trailing comma before ']'")
        XCTAssertEqual(error?.description, "line 3, column 14: trailing comma before ']'")
    }

    func testColumnsCountCharactersNotBytes() {
        let error = parseError("[\"猫猫\", x]")
        XCTAssertEqual(error?.line, 1)
        XCTAssertEqual(error?.column, 8)
    }

    func testRejectsWhatIsNotStrictJSON() {
        let cases: [(String, String)] = [
            ("", "the document is empty"),
            ("   ", "the document is empty"),
            ("{\"a\": 1,}", "trailing comma before '}'"),
            ("{\"a\" 1}", "expected ':' after the member name"),
            ("{a: 1}", "expected a member name in quotes"),
            ("{\"a\": 1, \"a\": 2}", "duplicate member name \"a\""),
            ("[1 2]", "expected ',' or ']' in an array"),
            ("[1, 2", "unexpected end of input in an array"),
            ("{\"a\": 1", "unexpected end of input in an object"),
            ("\"abc", "unterminated string"),
            ("\"a\tb\"", "control character byte 0x9 in a string (escape it)"),
            ("\"\\x\"", "invalid escape '\\x'"),
            ("\"\\u12\"", "\\u needs four hex digits"),
            ("\"\\ud83e\"", "unpaired surrogate \\uD83E"),
            ("\"\\udc00\"", "unpaired surrogate \\uDC00"),
            ("tru", "unexpected 't', expected a value"),
            ("nul", "unexpected 'n', expected a value"),
            ("[1] [2]", "unexpected '[' after the end of the document"),
            ("// comment\n1", "unexpected '/', expected a value"),
            ("'a'", "unexpected ''', expected a value"),
        ]
        for (text, message) in cases {
            XCTAssertEqual(parseError(text)?.message, message, text)
        }
    }

    func testRejectsInvalidUTF8() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xE7, 0x8C, 0x22],
                               [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE7]] {
            XCTAssertThrowsError(try JSONValue.parse(bytes: bytes), "\(bytes)")
        }
    }

    func testDeepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        XCTAssertEqual(parseError(deep)?.message, "nesting deeper than 256 levels")
        let fine = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        XCTAssertNoThrow(try JSONValue.parse(fine))
    }

    func testAgreesWithFoundationOnAPack() throws {
        let text = #"{"questions": [{"picture": "🐱", "answer": "猫脸", "options": ["猫", "脸"], "n": 1.25e1}]}"#
        let ours = try JSONValue.parse(text)
        let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
        let question = (theirs["questions"] as! [[String: Any]])[0]
        XCTAssertEqual(ours["questions"]?.array?[0]["answer"]?.string, question["answer"] as? String)
        XCTAssertEqual(ours["questions"]?.array?[0]["n"]?.number, (question["n"] as! NSNumber).doubleValue)
    }
}
