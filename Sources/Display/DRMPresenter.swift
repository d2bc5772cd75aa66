import CLinux
import Graphics
import Platform
import ScreenGeometry
#if canImport(Glibc)
import Glibc
#endif

/// The chosen output: connector, mode and why.
public struct OutputChoice: Sendable {
    public var connector: ConnectorInfo
    public var mode: DisplayMode
    /// "configured", "preferred" or "largest".
    public var reason: String
}

/// Connector: the configured one, else the first connected, else the first in "unknown"
/// state (composite outputs report that) with modes. Mode: configured, else preferred,
/// else the largest (then the fastest).
public func chooseOutput(_ connectors: [ConnectorInfo], config: DisplayConfig,
                         path: String) throws(DisplayError) -> OutputChoice {
    let connector: ConnectorInfo
    if let name = config.connector {
        guard let c = connectors.first(where: { $0.name == name }) else {
            throw .connectorNotFound(path: path, name: name, available: connectors.map(\.name))
        }
        guard !c.modes.isEmpty else {
            throw .noConnectedConnector(path: path, connectors: connectors.map { "\($0.name) \($0.state.rawValue)" })
        }
        connector = c
    } else if let c = connectors.first(where: { $0.state == .connected && !$0.modes.isEmpty })
                ?? connectors.first(where: { $0.state == .unknown && !$0.modes.isEmpty }) {
        connector = c
    } else {
        throw .noConnectedConnector(path: path, connectors: connectors.map { "\($0.name) \($0.state.rawValue)" })
    }
    let (mode, reason) = try chooseMode(connector, configured: config.mode)
    return OutputChoice(connector: connector, mode: mode, reason: reason)
}

func chooseMode(_ connector: ConnectorInfo, configured: String?) throws(DisplayError) -> (DisplayMode, String) {
    if let text = configured {
        let parts = text.split(separator: "@")
        let size = parts.first.map { $0.split(separator: "x") } ?? []
        guard parts.count <= 2, size.count == 2, let w = Int(size[0]), let h = Int(size[1]),
              parts.count == 1 || Int(parts[1]) != nil else {
            throw .badConfig("mode \"\(text)\" is not WIDTHxHEIGHT or WIDTHxHEIGHT@HZ")
        }
        let hz = parts.count == 2 ? Int(parts[1]) : nil
        let matches = connector.modes.filter { $0.width == w && $0.height == h && (hz == nil || $0.refreshHz == hz) }
        // Among equals, the preferred one, then the fastest.
        guard let mode = matches.max(by: { ($0.isPreferred ? 1 : 0, $0.refreshHz) < ($1.isPreferred ? 1 : 0, $1.refreshHz) }) else {
            throw .modeNotFound(connector: connector.name, mode: text, available: connector.modes.map(\.description))
        }
        return (mode, "configured")
    }
    if let mode = connector.modes.first(where: \.isPreferred) { return (mode, "preferred") }
    let largest = connector.modes.max { ($0.width * $0.height, $0.refreshHz) < ($1.width * $1.height, $1.refreshHz) }!
    return (largest, "largest")
}

/// One scan-out buffer: a dumb buffer, its mapping and its framebuffer id, made once and
/// freed in reverse order.
final class ScanoutBuffer {
    let device: DRMDevice
    let allocation: DumbAllocation
    let pointer: UnsafeMutableRawPointer
    let framebuffer: UInt32
    let surface: Surface
    let copyOut: CopyOut
    /// Damage (logical) this buffer has missed since it was last written.
    var stale = DamageRegion()

    init(device: DRMDevice, width: Int, height: Int, format: PixelFormat, rotation: Rotation) throws(SystemError) {
        let bpp = format == .rgb565 ? 16 : 32
        let depth = format == .rgb565 ? 16 : 24
        let allocation = try device.createDumbBuffer(width: width, height: height, bitsPerPixel: bpp)
        let pointer: UnsafeMutableRawPointer
        do {
            pointer = try device.mapDumbBuffer(allocation)
        } catch {
            device.destroyDumbBuffer(allocation.handle)
            throw error
        }
        let framebuffer: UInt32
        do {
            framebuffer = try device.addFramebuffer(width: width, height: height, depth: depth, bitsPerPixel: bpp,
                                                    pitch: allocation.pitch, handle: allocation.handle)
        } catch {
            device.unmapDumbBuffer(pointer, size: allocation.size)
            device.destroyDumbBuffer(allocation.handle)
            throw error
        }
        // Black to start with: a write, never a read.
        pointer.initializeMemory(as: UInt8.self, repeating: 0, count: allocation.size)
        self.device = device
        self.allocation = allocation
        self.pointer = pointer
        self.framebuffer = framebuffer
        surface = Surface(wrapping: pointer, width: width, height: height, stride: allocation.pitch, format: format)
        copyOut = CopyOut(destination: surface, rotation: rotation)
    }

    deinit {
        device.removeFramebuffer(framebuffer)
        device.unmapDumbBuffer(pointer, size: allocation.size)
        device.destroyDumbBuffer(allocation.handle)
    }
}

/// Shows frames on a DRM/KMS output: two dumb buffers, damage copy-out, page flips whose
/// completion events are the frame clock. Owns (in setup order) the VT, the card, the
/// hotplug socket, the buffers; `shutdown` undoes them in reverse.
public final class DRMPresenter: Presenter {
    public let rotation: Rotation
    public private(set) var width = 0
    public private(set) var height = 0
    public let device: DRMDevice
    public private(set) var output: OutputChoice
    public let format: PixelFormat
    public private(set) var needsFullRedraw = true

    private let config: DisplayConfig
    private var crtc: UInt32 = 0
    private var savedCRTC: CRTCState?
    private var buffers: [ScanoutBuffer] = []
    /// The buffer being scanned out; the other is the back buffer.
    private var front = 0
    private var flipPending = false
    public private(set) var lastShownAt: Double?
    private var terminal: VirtualTerminal?
    private var hotplug: DRMHotplug?
    private var lastConnectorState: ConnectionState?
    /// The card and the uevent socket as one descriptor (nil when epoll_create1 failed).
    private var epoll: FileDescriptor?
    private var vtReleased = false
    /// Switch requests refused on a locked VT since start.
    public private(set) var refusedSwitches = 0
    private var isShutDown = false

    /// Finds the card and output, allocates the buffers and modesets (a black screen
    /// until the first `present`).
    public init(config: DisplayConfig, system: DRMSystem = LinuxDRM()) throws(DisplayError) {
        self.config = config
        rotation = config.rotation
        if let format = config.format, format != .xrgb8888 && format != .rgb565 {
            throw .badConfig("scan-out format \(format) is not xrgb8888 or rgb565")
        }
        // The VT first: graphics mode before the first modeset keeps console text off it.
        if let tty = config.ttyPath {
            do {
                terminal = try VirtualTerminal(path: tty, locked: config.locksVT)
            } catch {
                // Still draw without it: the picture matters more than the console.
                Log.warning("display: running without a VT: \(error)")
            }
        }
        let (device, output) = try DRMPresenter.findCard(config: config, system: system)
        self.device = device
        self.output = output
        let depth = device.capability(capabilityDumbPreferredDepth) ?? 24
        format = config.format ?? (depth == 16 ? .rgb565 : .xrgb8888)
        do {
            try configure(output)
        } catch {
            shutdown()
            throw error
        }
        Log.info("display: \(device.path) (\(device.driverName)): \(output.connector.name) \(output.connector.state.rawValue), mode \(output.mode) (\(output.reason)), \(format), rotation \(rotation), logical \(width)x\(height)")
        if config.watchHotplug {
            do {
                hotplug = try DRMHotplug()
            } catch {
                Log.warning("display: no hotplug events, a re-plugged screen may stay dark: \(error)")
            }
        }
        setUpPoll()
    }

    deinit { shutdown() }

    /// The first card that can show a picture, or the most useful error about why none can.
    static func findCard(config: DisplayConfig, system: DRMSystem) throws(DisplayError) -> (DRMDevice, OutputChoice) {
        let paths = config.cardPath.map { [$0] } ?? system.cardPaths()
        guard !paths.isEmpty else { throw .noCard(searched: "no /dev/dri/card*") }
        var failures: [DisplayError] = []
        for path in paths {
            let device: DRMDevice
            do {
                device = try system.open(path)
            } catch {
                switch error.errno {
                case EACCES, EPERM: failures.append(.permissionDenied(path: path))
                case ENOENT, ENXIO, ENODEV: failures.append(.noCard(searched: path))
                default: failures.append(.system(error))
                }
                continue
            }
            guard device.capability(capabilityDumbBuffer) ?? 0 != 0 else {
                failures.append(.noDumbBuffers(path: path))
                device.close()
                continue
            }
            do {
                let connectors = try device.resources().connectors.map { (id) throws(SystemError) in try device.connector(id) }
                let output = try chooseOutput(connectors, config: config, path: path)
                // Opening a card with no master makes us master; otherwise someone holds it.
                if !device.isMaster {
                    do { try device.setMaster() } catch { throw DisplayError.masterHeld(path: path) }
                }
                return (device, output)
            } catch let error as DisplayError {
                failures.append(error)
            } catch let error as SystemError {
                // Render-only nodes have no mode resources.
                failures.append(error.errno == EOPNOTSUPP || error.errno == EINVAL
                                ? .noDumbBuffers(path: path) : .system(error))
            } catch {
                failures.append(.badConfig("\(error)"))
            }
            device.close()
        }
        // A configured card's own error; else the most actionable one.
        func rank(_ e: DisplayError) -> Int {
            switch e {
            case .badConfig, .connectorNotFound, .modeNotFound: 0
            case .permissionDenied: 1
            case .masterHeld: 2
            case .noConnectedConnector: 3
            case .system: 4
            case .noDumbBuffers, .noCRTC: 5
            default: 6
            }
        }
        let best = failures.min { rank($0) < rank($1) }
        if let best, case .noCard = best {
            throw .noCard(searched: paths.joined(separator: ", "))
        }
        throw best ?? .noCard(searched: paths.joined(separator: ", "))
    }

    /// Picks a CRTC, (re)allocates buffers if the size changed, modesets. Used at start
    /// and after hotplug.
    private func configure(_ output: OutputChoice) throws(DisplayError) {
        do {
            let resources = try device.resources()
            let newCRTC = try pickCRTC(output.connector, resources: resources)
            if savedCRTC == nil { savedCRTC = try? device.crtc(newCRTC) }
            let size = (output.mode.width, output.mode.height)
            if buffers.isEmpty || buffers[0].surface.width != size.0 || buffers[0].surface.height != size.1 {
                buffers.removeAll()
                flipPending = false
                for _ in 0..<2 {
                    buffers.append(try ScanoutBuffer(device: device, width: size.0, height: size.1,
                                                     format: format, rotation: rotation))
                }
                front = 0
                (width, height) = rotation.swapped(size.0, size.1)
            }
            crtc = newCRTC
            self.output = output
            try device.setCRTC(crtc, framebuffer: buffers[front].framebuffer, x: 0, y: 0,
                               connectors: [output.connector.id], mode: output.mode)
            device.markDirty(framebuffer: buffers[front].framebuffer)
        } catch let error as SystemError {
            if error.errno == EACCES || error.errno == EPERM { throw .masterHeld(path: device.path) }
            throw .system(error)
        } catch let error as DisplayError {
            throw error
        } catch {
            throw .badConfig("\(error)")
        }
        invalidateAll()
    }

    private func pickCRTC(_ connector: ConnectorInfo, resources: CardResources) throws -> UInt32 {
        if connector.encoderID != 0, let e = try? device.encoder(connector.encoderID), e.crtcID != 0 {
            return e.crtcID
        }
        for id in connector.encoders {
            guard let e = try? device.encoder(id) else { continue }
            for (i, crtc) in resources.crtcs.enumerated() where e.possibleCRTCs & (1 << UInt32(i)) != 0 {
                return crtc
            }
        }
        throw DisplayError.noCRTC(connector: connector.name)
    }

    /// Every buffer must be rewritten whole, and the UI should redraw.
    private func invalidateAll() {
        for b in buffers { b.stale = DamageRegion(PixelRect(0, 0, width, height)) }
        needsFullRedraw = true
    }

    private func setUpPoll() {
        guard let cardFD = device.fileDescriptor else { return }
        // One fd for the run loop: epoll over the card (flip events) and the uevent socket.
        let created = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard created >= 0 else { return }
        let epoll = FileDescriptor(rawValue: created)
        for fd in [cardFD, hotplug?.fileDescriptor].compactMap({ $0 }) {
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.fd = fd.rawValue
            _ = epoll_ctl(epoll.rawValue, EPOLL_CTL_ADD, fd.rawValue, &event)
        }
        self.epoll = epoll
    }

    public var refreshInterval: Double? { output.mode.refreshInterval }
    public var pollDescriptor: FileDescriptor? {
        epoll ?? device.fileDescriptor
    }

    public var isReadyForFrame: Bool { !flipPending && !vtReleased && !isShutDown && !isPanelOff }

    /// The panel is switched off (DPMS): nothing is flipped until it is back.
    public private(set) var isPanelOff = false

    /// Switches the panel off (screen care, closing time) or on again, where the whole
    /// picture is shown afresh. Returns whether the driver did it (no DPMS property: no).
    @discardableResult
    public func setPanelPower(_ on: Bool) -> Bool {
        guard on == isPanelOff else { return true }
        do {
            try device.setPower(connector: output.connector.id, on: on)
        } catch {
            Log.warning("display: panel \(on ? "on" : "off") through DPMS: \(error)")
            if !on { return false }
        }
        isPanelOff = !on
        if on { needsFullRedraw = true }
        return true
    }

    /// The back buffer receives its stale damage (this frame's plus what it missed while
    /// the other buffer was on screen), then flips in.
    public func present(_ shadow: Surface, damage: DamageRegion) throws(DisplayError) {
        guard shadow.width == width, shadow.height == height else {
            throw .shadowSizeMismatch(expected: "\(width)x\(height)", got: "\(shadow.width)x\(shadow.height)")
        }
        var damage = damage
        damage.clip(to: bounds)
        for b in buffers { b.stale.add(damage) }
        // Not ready: the damage waits in `stale` for the next frame.
        guard isReadyForFrame else { return }
        // The buffer on screen has missed nothing: no copy, no flip, no wake-up.
        guard !buffers[front].stale.isEmpty else { return }
        let back = buffers[1 - front]
        try back.copyOut.copy(from: shadow, region: back.stale)
        do {
            try device.pageFlip(crtc: crtc, framebuffer: back.framebuffer)
        } catch {
            // Lost master to a VT switch not yet signalled, or a flip still queued: keep
            // the damage and try with the next frame.
            if error.errno == EACCES || error.errno == EBUSY || error.errno == EPERM {
                Log.debug("display: page flip deferred: \(error)")
                return
            }
            throw .system(error)
        }
        back.stale.removeAll()
        flipPending = true
        needsFullRedraw = false
    }

    public func handleReadable() throws(DisplayError) {
        guard !isShutDown else { return }
        do {
            if try device.readEvents() > 0, flipPending {
                flipPending = false
                lastShownAt = device.lastFlipTime
                front = 1 - front
            }
        } catch {
            throw .system(error)
        }
        if let hotplug, hotplug.drain() { try reprobe() }
    }

    /// How often `checkConnector` is worth calling: uevents don't reach a kiosk in its own
    /// network namespace (the unit's PrivateNetwork), so the state is also polled.
    public static let connectorPollInterval = 3.0

    /// Re-probes when the shown connector's state changed since it was last looked at
    /// (a screen power-cycled, unplugged or plugged back). Asks the kernel's cached
    /// state only, so it costs one ioctl.
    public func checkConnector() throws(DisplayError) {
        guard !vtReleased, !isShutDown else { return }
        let state: ConnectionState
        do { state = try device.connectorState(output.connector.id) } catch { throw .system(error) }
        defer { lastConnectorState = state }
        if let last = lastConnectorState, last != state {
            Log.notice("display: \(output.connector.name) is now \(state)")
            if state != .disconnected { try reprobe() }
        }
    }

    /// After a DRM change uevent: modeset again (the same buffers, or new ones if the
    /// mode's size changed). A screen that is gone is waited for quietly.
    public func reprobe() throws(DisplayError) {
        guard !vtReleased, !isShutDown else { return }
        let connectors: [ConnectorInfo]
        do {
            connectors = try device.resources().connectors.map { (id) throws(SystemError) in try device.connector(id) }
        } catch {
            throw .system(error)
        }
        let choice: OutputChoice
        do {
            choice = try chooseOutput(connectors, config: config, path: device.path)
        } catch {
            Log.notice("display: screen unplugged (\(error)); waiting for it")
            return
        }
        let sizeChanged = choice.mode.width != output.mode.width || choice.mode.height != output.mode.height
        try configure(choice)
        Log.info("display: re-probed: \(choice.connector.name) mode \(choice.mode) (\(choice.reason))\(sizeChanged ? ", new size \(width)x\(height)" : "")")
    }

    public func handleVTSignal(_ signal: Int32) {
        if signal == VirtualTerminal.releaseSignal { releaseVT() }
        if signal == VirtualTerminal.acquireSignal { acquireVT() }
    }

    /// Another VT is wanted: stop drawing, let go of the card, tell the kernel. A locked VT
    /// refuses instead: on a public kiosk nobody at the keyboard may switch it away.
    public func releaseVT() {
        guard !vtReleased else { return }
        if let terminal, terminal.locked {
            refusedSwitches += 1
            // A held key repeats the request: the first refusal is news, the rest are not.
            if refusedSwitches == 1 { Log.notice("display: a switch away from \(terminal.path) was refused (the kiosk's VT is locked)") }
            terminal.answerRelease(allow: false)
            return
        }
        vtReleased = true
        do { try device.dropMaster() } catch { Log.warning("display: \(error)") }
        terminal?.answerRelease(allow: true)
    }

    /// Our VT is back: take the card again, modeset, redraw everything.
    public func acquireVT() {
        terminal?.acknowledgeAcquire()
        guard vtReleased else { return }
        do {
            try device.setMaster()
        } catch {
            Log.error("display: could not take DRM master back: \(error)")
            return
        }
        vtReleased = false
        // A flip queued before the switch will not complete now.
        flipPending = false
        do {
            try configure(output)
        } catch {
            Log.error("\(error)")
        }
    }

    public func shutdown() {
        guard !isShutDown else { return }
        isShutDown = true
        // Reverse order of setup: screen back, buffers, hotplug, card, VT.
        if let saved = savedCRTC, !vtReleased, saved.framebuffer != 0, let mode = saved.mode {
            do {
                try device.setCRTC(saved.id, framebuffer: saved.framebuffer, x: saved.x, y: saved.y,
                                   connectors: [output.connector.id], mode: mode)
            } catch {
                Log.warning("display: could not restore the previous screen: \(error)")
            }
        }
        buffers.removeAll()
        epoll?.close()
        epoll = nil
        hotplug = nil
        device.close()
        terminal = nil
    }
}
