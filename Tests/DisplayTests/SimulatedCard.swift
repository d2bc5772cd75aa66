@testable import Display
import Graphics
import Platform
#if canImport(Glibc)
import Glibc
#endif

/// A DRM card in memory: connectors, encoders, CRTCs, dumb buffers in ordinary memory,
/// page flips that complete when the test says so. Records every call in order.
final class SimulatedCard: DRMDevice {
    let path: String
    var fileDescriptor: FileDescriptor? { nil }
    var driverName = "simulated"
    var dumbBuffers = true
    var preferredDepth: UInt64 = 24
    var master = true
    var masterHeldElsewhere = false
    var connectors: [ConnectorInfo]
    var encoders: [UInt32: EncoderInfo] = [:]
    var crtcs: [UInt32] = [40]
    var crtcStates: [UInt32: CRTCState] = [:]
    var calls: [String] = []
    var failPageFlip: Int32?

    private(set) var maps: [UInt32: (pointer: UnsafeMutableRawPointer, size: Int)] = [:]  // by handle
    private(set) var framebuffers: [UInt32: (handle: UInt32, pitch: Int)] = [:]
    private var nextHandle: UInt32 = 1
    private var nextFramebuffer: UInt32 = 100
    var scannedOut: UInt32 = 0
    var queuedFlip: UInt32?
    var closed = false
    /// DPMS per connector (absent: on); `dpms = false` simulates a driver without it.
    var power: [UInt32: Bool] = [:]
    var dpms = true

    init(path: String = "/dev/dri/card0", connectors: [ConnectorInfo]) {
        self.path = path
        self.connectors = connectors
        for c in connectors {
            for e in c.encoders where encoders[e] == nil {
                encoders[e] = EncoderInfo(id: e, crtcID: 0, possibleCRTCs: 1)
            }
        }
        crtcStates[40] = CRTCState(id: 40, framebuffer: 7, x: 0, y: 0,
                                   mode: DisplayMode(width: 1024, height: 768))
    }

    func capability(_ capability: UInt64) -> UInt64? {
        switch capability {
        case capabilityDumbBuffer: dumbBuffers ? 1 : 0
        case capabilityDumbPreferredDepth: preferredDepth
        default: nil
        }
    }

    var isMaster: Bool { master }
    func setMaster() throws(SystemError) {
        calls.append("setMaster")
        if masterHeldElsewhere { throw SystemError("drmSetMaster", path, errno: EACCES) }
        master = true
    }
    func dropMaster() throws(SystemError) {
        calls.append("dropMaster")
        master = false
    }

    func resources() throws(SystemError) -> CardResources {
        CardResources(crtcs: crtcs, connectors: connectors.map(\.id))
    }
    func setPower(connector id: UInt32, on: Bool) throws(SystemError) {
        calls.append("setPower(\(id), \(on))")
        guard dpms else { throw SystemError("DPMS", "simulated", errno: ENOTSUP) }
        power[id] = on
    }

    func connectorState(_ id: UInt32) throws(SystemError) -> ConnectionState {
        try connector(id).state
    }

    func connector(_ id: UInt32) throws(SystemError) -> ConnectorInfo {
        guard let c = connectors.first(where: { $0.id == id }) else { throw SystemError("drmModeGetConnector", path, errno: ENOENT) }
        return c
    }
    func encoder(_ id: UInt32) throws(SystemError) -> EncoderInfo {
        guard let e = encoders[id] else { throw SystemError("drmModeGetEncoder", path, errno: ENOENT) }
        return e
    }
    func crtc(_ id: UInt32) throws(SystemError) -> CRTCState {
        guard let c = crtcStates[id] else { throw SystemError("drmModeGetCrtc", path, errno: ENOENT) }
        return c
    }

    func createDumbBuffer(width: Int, height: Int, bitsPerPixel: Int) throws(SystemError) -> DumbAllocation {
        let pitch = (width * bitsPerPixel / 8 + 63) & ~63
        let handle = nextHandle
        nextHandle += 1
        calls.append("createDumb \(width)x\(height)x\(bitsPerPixel)")
        let size = pitch * height
        let p = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        p.initializeMemory(as: UInt8.self, repeating: 0xAB, count: size)
        maps[handle] = (p, size)
        return DumbAllocation(handle: handle, pitch: pitch, size: size)
    }
    func mapDumbBuffer(_ buffer: DumbAllocation) throws(SystemError) -> UnsafeMutableRawPointer {
        calls.append("map \(buffer.handle)")
        return maps[buffer.handle]!.pointer
    }
    func unmapDumbBuffer(_ pointer: UnsafeMutableRawPointer, size: Int) {
        let handle = maps.first { $0.value.pointer == pointer }!.key
        calls.append("unmap \(handle)")
    }
    func destroyDumbBuffer(_ handle: UInt32) {
        calls.append("destroyDumb \(handle)")
        maps[handle]!.pointer.deallocate()
        maps[handle] = nil
    }
    func addFramebuffer(width: Int, height: Int, depth: Int, bitsPerPixel: Int, pitch: Int,
                        handle: UInt32) throws(SystemError) -> UInt32 {
        let id = nextFramebuffer
        nextFramebuffer += 1
        framebuffers[id] = (handle, pitch)
        calls.append("addFB \(id) depth \(depth) bpp \(bitsPerPixel)")
        return id
    }
    func removeFramebuffer(_ id: UInt32) {
        calls.append("rmFB \(id)")
        framebuffers[id] = nil
    }
    func setCRTC(_ crtc: UInt32, framebuffer: UInt32, x: UInt32, y: UInt32,
                 connectors: [UInt32], mode: DisplayMode?) throws(SystemError) {
        guard master else { throw SystemError("drmModeSetCrtc", path, errno: EACCES) }
        calls.append("setCrtc \(crtc) fb \(framebuffer) \(mode.map(\.description) ?? "off")")
        scannedOut = framebuffer
    }
    func pageFlip(crtc: UInt32, framebuffer: UInt32) throws(SystemError) {
        if let e = failPageFlip { throw SystemError("drmModePageFlip", path, errno: e) }
        guard master else { throw SystemError("drmModePageFlip", path, errno: EACCES) }
        guard queuedFlip == nil else { throw SystemError("drmModePageFlip", path, errno: EBUSY) }
        calls.append("flip fb \(framebuffer)")
        queuedFlip = framebuffer
    }
    func markDirty(framebuffer: UInt32) {}

    /// The vblank: the queued flip completes, at `time` (monotonic seconds).
    func vblank(at time: Double = monotonicSeconds()) {
        if let f = queuedFlip {
            scannedOut = f
            lastFlipTime = time
        }
        pendingEvents += queuedFlip == nil ? 0 : 1
        queuedFlip = nil
    }
    private var pendingEvents = 0
    private(set) var lastFlipTime: Double?
    func readEvents() throws(SystemError) -> Int {
        defer { pendingEvents = 0 }
        return pendingEvents
    }
    func close() {
        calls.append("close")
        closed = true
    }

    deinit {
        for (_, m) in maps { m.pointer.deallocate() }
    }

    /// The pixels of a framebuffer, as the panel would show them (tests may read them).
    func surface(framebuffer: UInt32, width: Int, height: Int, format: PixelFormat) -> Surface {
        let fb = framebuffers[framebuffer]!
        return Surface(wrapping: maps[fb.handle]!.pointer, width: width, height: height,
                       stride: fb.pitch, format: format)
    }
}

/// A set of simulated cards; a path may instead fail to open with an errno.
struct SimulatedSystem: DRMSystem {
    var cards: [String: SimulatedCard] = [:]
    var openErrors: [String: Int32] = [:]
    var paths: [String]

    init(_ cards: [SimulatedCard], openErrors: [String: Int32] = [:]) {
        for c in cards { self.cards[c.path] = c }
        self.openErrors = openErrors
        paths = (cards.map(\.path) + openErrors.keys).sorted()
    }

    func cardPaths() -> [String] { paths }
    func open(_ path: String) throws(SystemError) -> DRMDevice {
        if let e = openErrors[path] { throw SystemError("open", path, errno: e) }
        guard let c = cards[path] else { throw SystemError("open", path, errno: ENOENT) }
        return c
    }
}

func hdmi(_ state: ConnectionState = .connected, id: UInt32 = 1, index: Int = 1,
          modes: [DisplayMode] = [DisplayMode(width: 1280, height: 800, isPreferred: true)]) -> ConnectorInfo {
    ConnectorInfo(id: id, name: "HDMI-A-\(index)", state: state, modes: modes, encoderID: 0, encoders: [10])
}
