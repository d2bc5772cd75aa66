import Graphics
import Platform
import ScreenGeometry
#if canImport(Glibc)
import Glibc
#endif

/// A fixed test scene for checking the display path end to end: colour bars, a grey
/// ramp, a one-pixel checker, corner markers and a border (rotation and off-by-one
/// errors show), and a square that moves over `testSceneFrames` frames with damage-only
/// updates (a wrong two-buffer damage copy leaves trails).
public enum TestScene {
    public static let frames = 40
    static let background = Color(hex: 0x202840)

    /// The whole scene as it stands after `frame` steps.
    public static func draw(_ s: Surface, frame: Int) {
        let w = s.width, h = s.height
        s.clear(s.bounds, to: background)
        let bars: [UInt32] = [0xFFFFFF, 0xFFFF00, 0x00FFFF, 0x00FF00, 0xFF00FF, 0xFF0000, 0x0000FF, 0x000000]
        for (i, c) in bars.enumerated() {
            let x0 = w * i / bars.count, x1 = w * (i + 1) / bars.count
            s.clear(PixelRect(x0, 0, x1 - x0, h / 4), to: Color(hex: c))
        }
        for i in 0..<32 {
            let x0 = w * i / 32, x1 = w * (i + 1) / 32
            let g = UInt32(i * 255 / 31)
            s.clear(PixelRect(x0, h / 4, x1 - x0, h / 16), to: Color(hex: g << 16 | g << 8 | g))
        }
        // One-pixel checker: any half-pixel shift or wrong filter blurs it.
        let side = min(64, w / 4, h / 4)
        let cx = w - side - 8, cy = h / 2
        if s.format == .xrgb8888 {
            for y in 0..<side {
                let row = s.pixels + (cy + y) * s.stride
                for x in 0..<side {
                    row.storeBytes(of: (x + y) % 2 == 0 ? 0xFFFFFF : 0x000000 as UInt32,
                                   toByteOffset: (cx + x) * 4, as: UInt32.self)
                }
            }
        }
        let m = max(4, min(w, h) / 25)
        s.clear(PixelRect(1, h - m - 1, m, m), to: Color(hex: 0xFF0000))        // bottom left: red
        s.clear(PixelRect(w - m - 1, h - m - 1, m, m), to: Color(hex: 0x00FF00)) // bottom right: green
        s.clear(PixelRect(0, 0, w, 1), to: .white)
        s.clear(PixelRect(0, h - 1, w, 1), to: .white)
        s.clear(PixelRect(0, 0, 1, h), to: .white)
        s.clear(PixelRect(w - 1, 0, 1, h), to: .white)
        s.clear(square(frame, w, h), to: Color(hex: 0xFF8800))
    }

    /// Moves the square from `frame - 1` to `frame`; returns what changed.
    public static func step(_ s: Surface, to frame: Int) -> DamageRegion {
        let old = square(frame - 1, s.width, s.height), new = square(frame, s.width, s.height)
        s.clear(old, to: background)
        s.clear(new, to: Color(hex: 0xFF8800))
        var d = DamageRegion(old)
        d.add(new)
        return d
    }

    static func square(_ frame: Int, _ w: Int, _ h: Int) -> PixelRect {
        let size = max(8, min(w, h) / 10)
        let travel = max(1, w / 2 - size)
        let x = 8 + travel * min(max(frame, 0), frames) / frames
        return PixelRect(x, h * 5 / 8, size, size)
    }
}

/// Writes a panel picture as binary PPM, the format QEMU's `screendump` writes by default
/// (and with the same header), so the two compare byte for byte.
public func writePPM(_ s: Surface, to path: String) throws(SystemError) {
    var bytes = Array("P6\n\(s.width) \(s.height)\n255\n".utf8)
    bytes.reserveCapacity(bytes.count + s.width * s.height * 3)
    for y in 0..<s.height {
        for x in 0..<s.width {
            let c = s.pixel(x: x, y: y)
            bytes.append(c.r)
            bytes.append(c.g)
            bytes.append(c.b)
        }
    }
    try Files.writeAtomically(path, bytes: bytes)
}

/// `boardwalk display-test`: draws `TestScene` through the DRM presenter (or headless)
/// and waits for SIGTERM/SIGINT, handling flips, VT switches and hotplug meanwhile.
public func displayTestMain(_ args: [String]) -> Int32 {
    let usage = """
        usage: boardwalk display-test [--headless OUT.ppm] [--size WxH] [--rotation 0|90|180|270]
                                      [--card PATH] [--connector NAME] [--mode WxH[@HZ]]
                                      [--format xrgb8888|rgb565] [--tty PATH|none] [--exit-after SECONDS]
          --size is the panel (mode) size of a headless run, 1280x800 by default
        """
    var config = DisplayConfig()
    var headlessOut: String?
    var panel = (1280, 800)
    var exitAfter: Double?
    var i = 0
    func value() -> String? {
        i += 1
        return i < args.count ? args[i] : nil
    }
    while i < args.count {
        let arg = args[i]
        switch arg {
        case "--headless": headlessOut = value()
        case "--card": config.cardPath = value()
        case "--connector": config.connector = value()
        case "--mode": config.mode = value()
        case "--tty":
            let t = value()
            config.ttyPath = t == "none" ? nil : t
        case "--rotation":
            guard let v = value(), let d = Int(v), let r = Rotation(rawValue: d) else {
                printError("display-test: rotation must be 0, 90, 180 or 270\n\(usage)")
                return 2
            }
            config.rotation = r
        case "--format":
            guard let v = value(), let f = PixelFormat(rawValue: v), f == .xrgb8888 || f == .rgb565 else {
                printError("display-test: format must be xrgb8888 or rgb565\n\(usage)")
                return 2
            }
            config.format = f
        case "--size":
            let parts = value()?.split(separator: "x").compactMap { Int($0) } ?? []
            guard parts.count == 2 else {
                printError("display-test: size must be WIDTHxHEIGHT\n\(usage)")
                return 2
            }
            panel = (parts[0], parts[1])
        case "--exit-after":
            guard let v = value().flatMap(Double.init) else {
                printError("display-test: --exit-after takes seconds\n\(usage)")
                return 2
            }
            exitAfter = v
        case "-h", "--help":
            print(usage)
            return 0
        default:
            printError("display-test: unknown argument \(arg)\n\(usage)")
            return 2
        }
        i += 1
    }

    if let out = headlessOut {
        do {
            let logical = config.rotation.swapped(panel.0, panel.1)
            let presenter = try HeadlessPresenter(width: logical.width, height: logical.height,
                                                  rotation: config.rotation, format: config.format ?? .xrgb8888)
            try runTestScene(presenter)
            try writePPM(presenter.screenshot(), to: out)
            print("display-test: wrote \(out) (\(panel.0)x\(panel.1), rotation \(config.rotation))")
            return 0
        } catch {
            printError("\(error)")
            return 1
        }
    }

    // Signals arrive synchronously (sigtimedwait) between polls; blocked before the VT
    // is set to VT_PROCESS, since SIGUSR1 would otherwise kill us.
    var signals = sigset_t()
    sigemptyset(&signals)
    for s in [SIGTERM, SIGINT, SIGHUP, VirtualTerminal.releaseSignal, VirtualTerminal.acquireSignal] {
        sigaddset(&signals, s)
    }
    pthread_sigmask(SIG_BLOCK, &signals, nil)

    let presenter: DRMPresenter
    do {
        presenter = try DRMPresenter(config: config)
    } catch {
        printError("\(error)")
        return 1
    }
    defer { presenter.shutdown() }
    let deadline = exitAfter.map { monotonicSeconds() + $0 }
    var shadow = Surface(width: presenter.width, height: presenter.height, format: .xrgb8888)
    var frame = 0
    var pending = DamageRegion()
    var announced = false
    do {
        loop: while true {
            var info = siginfo_t()
            var zero = timespec(tv_sec: 0, tv_nsec: 0)
            while true {
                let signo = sigtimedwait(&signals, &info, &zero)
                if signo <= 0 { break }
                if signo == SIGTERM || signo == SIGINT || signo == SIGHUP {
                    Log.info("display-test: signal \(signo), restoring the console")
                    break loop
                }
                presenter.handleVTSignal(signo)
            }
            if presenter.needsFullRedraw && presenter.isReadyForFrame {
                if shadow.width != presenter.width || shadow.height != presenter.height {
                    shadow = Surface(width: presenter.width, height: presenter.height, format: .xrgb8888)
                }
                TestScene.draw(shadow, frame: frame)
                pending = DamageRegion(shadow.bounds)
            }
            if presenter.isReadyForFrame {
                if frame < TestScene.frames {
                    frame += 1
                    pending.add(TestScene.step(shadow, to: frame))
                }
                if !pending.isEmpty {
                    try presenter.present(shadow, damage: pending)
                    pending.removeAll()
                } else if !announced {
                    announced = true
                    Log.info("display-test: scene complete (\(TestScene.frames) frames)")
                }
            }
            if let deadline, monotonicSeconds() >= deadline { break }
            if let fd = presenter.pollDescriptor {
                var p = pollfd(fd: fd.rawValue, events: Int16(POLLIN), revents: 0)
                if poll(&p, 1, 100) > 0 { try presenter.handleReadable() }
            } else {
                usleep(100_000)
            }
        }
    } catch {
        printError("\(error)")
        return 1
    }
    return 0
}

/// The scene the DRM run shows, rendered through a presenter frame by frame.
public func runTestScene(_ presenter: Presenter) throws(DisplayError) {
    let shadow = Surface(width: presenter.width, height: presenter.height, format: .xrgb8888)
    TestScene.draw(shadow, frame: 0)
    try presenter.present(shadow, damage: DamageRegion(shadow.bounds))
    for frame in 1...TestScene.frames {
        try presenter.present(shadow, damage: TestScene.step(shadow, to: frame))
    }
}

private func printError(_ text: String) {
    Log.error(text)
}
