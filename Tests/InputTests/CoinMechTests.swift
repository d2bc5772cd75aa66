#if canImport(Glibc)
import Glibc
#endif
import CEvdev
import XCTest
@testable import Input

/// Coins are money: only the mech's device drops them, and a mech drops at most about ten
/// a second.
final class CoinMechTests: XCTestCase {
    let keyboard = DeviceClass.keys(KeyDeviceInfo(isGamepad: false))
    let encoder = DeviceClass.keys(KeyDeviceInfo(isGamepad: true))
    let gpioPin = DeviceClass.ignored(reason: "no touch, keyboard or game controls")

    func testWithoutANamedDeviceNoKeyboardDropsCoins() {
        let mech = CoinMech(key: UInt16(KEY_5))
        XCTAssertFalse(mech.isMech(name: "Logitech USB Keyboard", uniq: "", path: "/dev/input/event4", deviceClass: keyboard),
                       "a stranger's keyboard typing 5")
        XCTAssertTrue(mech.isMech(name: "coin", uniq: "", path: "/dev/input/event1", deviceClass: gpioPin),
                      "a gpio-keys node with the coin pin")
        XCTAssertTrue(mech.isMech(name: "DragonRise Inc. Generic USB Joystick", uniq: "", path: "/dev/input/event2",
                                  deviceClass: encoder))
        XCTAssertFalse(CoinMech().isMech(name: "coin", uniq: "", path: "/dev/input/event1", deviceClass: gpioPin),
                       "no key, no mech")
    }

    func testANamedDeviceIsTheOnlyMech() throws {
        let mech = CoinMech(key: UInt16(KEY_5), device: "Ultimarc I-PAC 2")
        XCTAssertTrue(mech.isMech(name: "Ultimarc I-PAC 2", uniq: "", path: "/dev/input/event3", deviceClass: keyboard),
                      "an encoder is a full keyboard, named by the profile")
        XCTAssertFalse(mech.isMech(name: "Ultimarc I-PAC 2 Keyboard", uniq: "", path: "/dev/input/event5", deviceClass: keyboard),
                       "a name that only contains the mech's is another device")
        XCTAssertFalse(mech.isMech(name: "coin", uniq: "", path: "/dev/input/event1", deviceClass: gpioPin))
        let byUniq = CoinMech(key: UInt16(KEY_5), device: "coin-mech")
        XCTAssertTrue(byUniq.isMech(name: "QEMU Virtio Keyboard", uniq: "coin-mech", path: "/dev/input/event2", deviceClass: keyboard))
        XCTAssertFalse(byUniq.isMech(name: "QEMU Virtio Keyboard", uniq: "", path: "/dev/input/event3", deviceClass: keyboard),
                       "the same kind of keyboard without the mech's serial")
    }

    func testAPathFollowsByPathLinks() throws {
        let dir = NSTemporaryDirectoryPath() + "/coinmech-\(getpid())"
        mkdir(dir, 0o755)
        defer { unlink(dir + "/by-path"); unlink(dir + "/event7"); rmdir(dir) }
        XCTAssertEqual(creat(dir + "/event7", 0o644) >= 0, true)
        symlink(dir + "/event7", dir + "/by-path")
        let mech = CoinMech(key: UInt16(KEY_5), device: dir + "/by-path")
        XCTAssertTrue(mech.isMech(name: "gpio_keys", uniq: "", path: dir + "/event7", deviceClass: gpioPin))
        XCTAssertFalse(mech.isMech(name: "gpio_keys", uniq: "", path: dir + "/event8", deviceClass: gpioPin))
    }

    func testPressesFasterThanAMechDropsCoinsAreBounced() {
        var mapper = KeyMapper()
        mapper.coinCode = UInt16(KEY_5)
        func coins(presses: Int, every gap: Double, from start: Double) -> Int {
            var count = 0
            for n in 0..<presses {
                let t = start + Double(n) * gap
                for (value, at) in [(Int32(1), t), (0, t + gap / 2)] {
                    let event = RawInputEvent(time: at, type: EV.key, code: UInt16(KEY_5), value: value)
                    count += mapper.handle(event).filter { $0.key == .coin && $0.isPressed }.count
                }
            }
            return count
        }
        // Contact bounce, or someone shorting the pin: 20 presses 25 ms apart (0.5 s) count
        // as one coin per 80 ms at most.
        let burst = coins(presses: 20, every: 0.025, from: 10)
        XCTAssertGreaterThanOrEqual(burst, 5)
        XCTAssertLessThanOrEqual(burst, 7)
        // A busy mech, a coin every 120 ms: every one counts.
        XCTAssertEqual(coins(presses: 20, every: 0.12, from: 20), 20)
    }
}

private func NSTemporaryDirectoryPath() -> String {
    String(cString: getenv("TMPDIR") ?? strdup("/tmp"))
}
