import CDRM
import Platform
#if canImport(Glibc)
import Glibc
#endif

// Every libdrm call Boardwalk makes lives in this file, behind `DRMDevice`, so that the
// presenter's logic (card and mode choice, buffers, damage, flips, errors) runs against a
// simulated card in tests.

/// A display mode as a connector offers it.
public struct DisplayMode: Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var refreshHz: Int
    public var isPreferred: Bool
    /// The kernel's mode, handed back unchanged on modeset.
    var info: drmModeModeInfo

    public init(width: Int, height: Int, refreshHz: Int = 60, isPreferred: Bool = false) {
        self.width = width
        self.height = height
        self.refreshHz = refreshHz
        self.isPreferred = isPreferred
        var info = drmModeModeInfo()
        info.hdisplay = UInt16(clamping: width)
        info.vdisplay = UInt16(clamping: height)
        info.vrefresh = UInt32(clamping: refreshHz)
        if isPreferred { info.type = UInt32(DRM_MODE_TYPE_PREFERRED) }
        self.info = info
    }

    init(_ info: drmModeModeInfo) {
        self.info = info
        width = Int(info.hdisplay)
        height = Int(info.vdisplay)
        refreshHz = Int(info.vrefresh)
        isPreferred = info.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0
    }

    public var description: String { "\(width)x\(height)@\(refreshHz)" }

    /// Seconds from one vblank to the next: the mode's pixel clock over its total size
    /// (59.94 Hz is not 60), or the rounded rate where the timings are not known.
    public var refreshInterval: Double {
        let pixels = Double(info.htotal) * Double(info.vtotal)
        if info.clock > 0, pixels > 0 { return pixels / (Double(info.clock) * 1000) }
        return 1 / Double(max(refreshHz, 1))
    }
}

public enum ConnectionState: String, Sendable {
    case connected, disconnected, unknown
}

public struct ConnectorInfo: Sendable {
    public var id: UInt32
    /// The kernel's name: type and index, "HDMI-A-1".
    public var name: String
    public var state: ConnectionState
    public var modes: [DisplayMode]
    /// The encoder in use now, 0 for none.
    public var encoderID: UInt32
    public var encoders: [UInt32]

    public init(id: UInt32, name: String, state: ConnectionState, modes: [DisplayMode],
                encoderID: UInt32 = 0, encoders: [UInt32] = []) {
        self.id = id
        self.name = name
        self.state = state
        self.modes = modes
        self.encoderID = encoderID
        self.encoders = encoders
    }
}

public struct EncoderInfo: Sendable {
    public var id: UInt32
    public var crtcID: UInt32
    /// Bit i set: the i-th CRTC of the card's resources can drive it.
    public var possibleCRTCs: UInt32
    public init(id: UInt32, crtcID: UInt32, possibleCRTCs: UInt32) {
        self.id = id
        self.crtcID = crtcID
        self.possibleCRTCs = possibleCRTCs
    }
}

public struct CardResources: Sendable {
    public var crtcs: [UInt32]
    public var connectors: [UInt32]
    public init(crtcs: [UInt32], connectors: [UInt32]) {
        self.crtcs = crtcs
        self.connectors = connectors
    }
}

/// What a CRTC was showing, kept to put it back on exit.
public struct CRTCState: Sendable {
    public var id: UInt32
    public var framebuffer: UInt32
    public var x: UInt32
    public var y: UInt32
    public var mode: DisplayMode?
}

public struct DumbAllocation: Sendable, Equatable {
    public var handle: UInt32
    public var pitch: Int
    public var size: Int
}

/// The libdrm calls the presenter needs, on one open card. Fallible calls throw the
/// failing call's `SystemError`.
public protocol DRMDevice: AnyObject {
    var path: String { get }
    /// The card fd for poll, nil for a simulated card.
    var fileDescriptor: FileDescriptor? { get }
    var driverName: String { get }
    func capability(_ capability: UInt64) -> UInt64?
    var isMaster: Bool { get }
    func setMaster() throws(SystemError)
    func dropMaster() throws(SystemError)
    func resources() throws(SystemError) -> CardResources
    func connector(_ id: UInt32) throws(SystemError) -> ConnectorInfo
    /// The connector's state as the kernel last saw it, without probing the hardware
    /// (no EDID read): cheap enough to ask every few seconds.
    func connectorState(_ id: UInt32) throws(SystemError) -> ConnectionState
    func encoder(_ id: UInt32) throws(SystemError) -> EncoderInfo
    func crtc(_ id: UInt32) throws(SystemError) -> CRTCState
    func createDumbBuffer(width: Int, height: Int, bitsPerPixel: Int) throws(SystemError) -> DumbAllocation
    func mapDumbBuffer(_ buffer: DumbAllocation) throws(SystemError) -> UnsafeMutableRawPointer
    func unmapDumbBuffer(_ pointer: UnsafeMutableRawPointer, size: Int)
    func destroyDumbBuffer(_ handle: UInt32)
    func addFramebuffer(width: Int, height: Int, depth: Int, bitsPerPixel: Int, pitch: Int,
                        handle: UInt32) throws(SystemError) -> UInt32
    func removeFramebuffer(_ id: UInt32)
    /// Modeset; `mode` nil with framebuffer 0 turns the CRTC off.
    func setCRTC(_ crtc: UInt32, framebuffer: UInt32, x: UInt32, y: UInt32,
                 connectors: [UInt32], mode: DisplayMode?) throws(SystemError)
    /// Queues a flip at the next vblank; completion arrives as an event.
    func pageFlip(crtc: UInt32, framebuffer: UInt32) throws(SystemError)
    /// Tells drivers that need it (virtio-gpu, USB panels) that the buffer changed.
    func markDirty(framebuffer: UInt32)
    /// Reads the pending events without blocking; returns how many flips completed.
    func readEvents() throws(SystemError) -> Int
    /// When the latest completed flip reached the screen: its vblank's timestamp
    /// (CLOCK_MONOTONIC seconds, the kernel's clock for DRM events); nil before the first.
    var lastFlipTime: Double? { get }
    /// Switches the panel on a connector on or off through its DPMS property (the picture
    /// and the mode stay; the screen sleeps).
    func setPower(connector id: UInt32, on: Bool) throws(SystemError)
    func close()
}

public let capabilityDumbBuffer = UInt64(DRM_CAP_DUMB_BUFFER)
public let capabilityDumbPreferredDepth = UInt64(DRM_CAP_DUMB_PREFERRED_DEPTH)

/// Where the cards are and how to open one.
public protocol DRMSystem {
    func cardPaths() -> [String]
    func open(_ path: String) throws(SystemError) -> DRMDevice
}

/// The machine's /dev/dri.
public struct LinuxDRM: DRMSystem {
    public init() {}

    public func cardPaths() -> [String] {
        // card0, card1, ... in numeric order; renderD* nodes cannot modeset.
        Files.listDirectory("/dev/dri")
            .filter { $0.hasPrefix("card") && Int($0.dropFirst(4)) != nil }
            .sorted { Int($0.dropFirst(4))! < Int($1.dropFirst(4))! }
            .map { "/dev/dri/" + $0 }
    }

    public func open(_ path: String) throws(SystemError) -> DRMDevice {
        try DRMCard(path: path)
    }
}

/// An open DRM card node: owns the fd.
public final class DRMCard: DRMDevice {
    public let path: String
    private var fd: FileDescriptor?
    /// Counts flip completions; its address rides along as each flip's user data.
    private final class FlipCounter {
        var completed = 0
        var lastTime: Double?
    }
    private let flips = FlipCounter()

    public init(path: String) throws(SystemError) {
        self.path = path
        fd = try FileDescriptor.open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK)
    }

    deinit { close() }

    public func close() {
        fd?.close()
        fd = nil
    }

    public var fileDescriptor: FileDescriptor? { fd }
    /// For libdrm; -1 once closed, so a late call fails with EBADF.
    private var rawFD: Int32 { fd?.rawValue ?? -1 }

    public var driverName: String {
        guard let version = drmGetVersion(rawFD) else { return "unknown" }
        defer { drmFreeVersion(version) }
        return version.pointee.name.map { String(cString: $0) } ?? "unknown"
    }

    public func capability(_ capability: UInt64) -> UInt64? {
        var value: UInt64 = 0
        return drmGetCap(rawFD, capability, &value) == 0 ? value : nil
    }

    public var isMaster: Bool { drmIsMaster(rawFD) != 0 }

    // libdrm returns -errno from most calls rather than setting errno.
    private func check(_ result: Int32, _ call: String) throws(SystemError) {
        if result < 0 { throw SystemError(call, path, errno: result == -1 ? errno : -result) }
    }

    public func setMaster() throws(SystemError) { try check(drmSetMaster(rawFD), "drmSetMaster") }

    public func setPower(connector id: UInt32, on: Bool) throws(SystemError) {
        guard let props = drmModeObjectGetProperties(rawFD, id, UInt32(DRM_MODE_OBJECT_CONNECTOR)) else {
            throw SystemError("drmModeObjectGetProperties", "\(path) connector \(id)")
        }
        defer { drmModeFreeObjectProperties(props) }
        for i in 0..<Int(props.pointee.count_props) {
            let propertyID = props.pointee.props[i]
            guard let property = drmModeGetProperty(rawFD, propertyID) else { continue }
            defer { drmModeFreeProperty(property) }
            let name = withUnsafeBytes(of: property.pointee.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name == "DPMS" else { continue }
            let value = UInt64(on ? DRM_MODE_DPMS_ON : DRM_MODE_DPMS_OFF)
            try check(drmModeConnectorSetProperty(rawFD, id, propertyID, value), "drmModeConnectorSetProperty(DPMS)")
            return
        }
        throw SystemError("DPMS", "\(path) connector \(id) has no DPMS property", errno: ENOTSUP)
    }
    public func dropMaster() throws(SystemError) { try check(drmDropMaster(rawFD), "drmDropMaster") }

    public func resources() throws(SystemError) -> CardResources {
        guard let res = drmModeGetResources(rawFD) else { throw SystemError("drmModeGetResources", path) }
        defer { drmModeFreeResources(res) }
        let r = res.pointee
        return CardResources(
            crtcs: Array(UnsafeBufferPointer(start: r.crtcs, count: Int(r.count_crtcs))),
            connectors: Array(UnsafeBufferPointer(start: r.connectors, count: Int(r.count_connectors))))
    }

    public func connector(_ id: UInt32) throws(SystemError) -> ConnectorInfo {
        guard let c = drmModeGetConnector(rawFD, id) else {
            throw SystemError("drmModeGetConnector", "\(path) connector \(id)")
        }
        defer { drmModeFreeConnector(c) }
        let info = c.pointee
        let type = drmModeGetConnectorTypeName(info.connector_type).map { String(cString: $0) } ?? "Unknown"
        let state: ConnectionState = switch info.connection {
        case DRM_MODE_CONNECTED: .connected
        case DRM_MODE_DISCONNECTED: .disconnected
        default: .unknown
        }
        return ConnectorInfo(
            id: id, name: "\(type)-\(info.connector_type_id)", state: state,
            modes: UnsafeBufferPointer(start: info.modes, count: Int(info.count_modes)).map(DisplayMode.init),
            encoderID: info.encoder_id,
            encoders: Array(UnsafeBufferPointer(start: info.encoders, count: Int(info.count_encoders))))
    }

    public func connectorState(_ id: UInt32) throws(SystemError) -> ConnectionState {
        guard let c = drmModeGetConnectorCurrent(rawFD, id) else {
            throw SystemError("drmModeGetConnectorCurrent", "\(path) connector \(id)")
        }
        defer { drmModeFreeConnector(c) }
        switch c.pointee.connection {
        case DRM_MODE_CONNECTED: return .connected
        case DRM_MODE_DISCONNECTED: return .disconnected
        default: return .unknown
        }
    }

    public func encoder(_ id: UInt32) throws(SystemError) -> EncoderInfo {
        guard let e = drmModeGetEncoder(rawFD, id) else {
            throw SystemError("drmModeGetEncoder", "\(path) encoder \(id)")
        }
        defer { drmModeFreeEncoder(e) }
        return EncoderInfo(id: id, crtcID: e.pointee.crtc_id, possibleCRTCs: e.pointee.possible_crtcs)
    }

    public func crtc(_ id: UInt32) throws(SystemError) -> CRTCState {
        guard let c = drmModeGetCrtc(rawFD, id) else { throw SystemError("drmModeGetCrtc", "\(path) crtc \(id)") }
        defer { drmModeFreeCrtc(c) }
        let s = c.pointee
        return CRTCState(id: id, framebuffer: s.buffer_id, x: s.x, y: s.y,
                         mode: s.mode_valid != 0 ? DisplayMode(s.mode) : nil)
    }

    public func createDumbBuffer(width: Int, height: Int, bitsPerPixel: Int) throws(SystemError) -> DumbAllocation {
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0
        try check(drmModeCreateDumbBuffer(rawFD, UInt32(width), UInt32(height), UInt32(bitsPerPixel), 0,
                                          &handle, &pitch, &size), "drmModeCreateDumbBuffer")
        return DumbAllocation(handle: handle, pitch: Int(pitch), size: Int(size))
    }

    public func mapDumbBuffer(_ buffer: DumbAllocation) throws(SystemError) -> UnsafeMutableRawPointer {
        var offset: UInt64 = 0
        try check(drmModeMapDumbBuffer(rawFD, buffer.handle, &offset), "drmModeMapDumbBuffer")
        let p = mmap(nil, buffer.size, PROT_READ | PROT_WRITE, MAP_SHARED, rawFD, off_t(offset))
        guard let p, p != MAP_FAILED else { throw SystemError("mmap", "\(path) dumb buffer") }
        return p
    }

    public func unmapDumbBuffer(_ pointer: UnsafeMutableRawPointer, size: Int) {
        munmap(pointer, size)
    }

    public func destroyDumbBuffer(_ handle: UInt32) {
        _ = drmModeDestroyDumbBuffer(rawFD, handle)
    }

    public func addFramebuffer(width: Int, height: Int, depth: Int, bitsPerPixel: Int, pitch: Int,
                               handle: UInt32) throws(SystemError) -> UInt32 {
        var id: UInt32 = 0
        try check(drmModeAddFB(rawFD, UInt32(width), UInt32(height), UInt8(depth), UInt8(bitsPerPixel),
                               UInt32(pitch), handle, &id), "drmModeAddFB")
        return id
    }

    public func removeFramebuffer(_ id: UInt32) {
        _ = drmModeRmFB(rawFD, id)
    }

    public func setCRTC(_ crtc: UInt32, framebuffer: UInt32, x: UInt32, y: UInt32,
                        connectors: [UInt32], mode: DisplayMode?) throws(SystemError) {
        var ids = connectors
        var info = mode?.info ?? drmModeModeInfo()
        let result = ids.withUnsafeMutableBufferPointer { ids in
            withUnsafeMutablePointer(to: &info) { info in
                drmModeSetCrtc(rawFD, crtc, framebuffer, x, y, ids.baseAddress, Int32(ids.count),
                               mode == nil ? nil : info)
            }
        }
        try check(result, "drmModeSetCrtc")
    }

    public func pageFlip(crtc: UInt32, framebuffer: UInt32) throws(SystemError) {
        let userData = Unmanaged.passUnretained(flips).toOpaque()
        try check(drmModePageFlip(rawFD, crtc, framebuffer, UInt32(DRM_MODE_PAGE_FLIP_EVENT), userData),
                  "drmModePageFlip")
    }

    public func markDirty(framebuffer: UInt32) {
        // ENOSYS on drivers that scan out directly from memory: nothing to do then.
        _ = drmModeDirtyFB(rawFD, framebuffer, nil, 0)
    }

    public func readEvents() throws(SystemError) -> Int {
        let before = flips.completed
        var context = drmEventContext()
        context.version = 2
        context.page_flip_handler = { _, _, seconds, microseconds, userData in
            guard let userData else { return }
            let counter = Unmanaged<FlipCounter>.fromOpaque(userData).takeUnretainedValue()
            counter.completed += 1
            counter.lastTime = Double(seconds) + Double(microseconds) / 1e6
        }
        while true {
            // drmHandleEvent reads once; the fd is non-blocking, so check readiness first.
            var p = pollfd(fd: rawFD, events: Int16(POLLIN), revents: 0)
            let ready = try retryingEINTR("poll", path) { poll(&p, 1, 0) }
            if ready == 0 { break }
            if drmHandleEvent(rawFD, &context) != 0 {
                if errno == EAGAIN || errno == EINTR { break }
                throw SystemError("drmHandleEvent", path)
            }
        }
        return flips.completed - before
    }

    public var lastFlipTime: Double? { flips.lastTime }
}
