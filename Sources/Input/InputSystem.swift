#if canImport(Glibc)
import Glibc
#endif
import Platform

/// The kiosk's input settings, from its config and the board profile.
public struct InputConfig: Sendable, Equatable {
    /// The scan-out mode in pixels before rotation, the rotation, and the panel's fixes.
    public var transform: TouchTransform
    /// Board profile: only a touch device whose name contains this, or whose path is this,
    /// gives touches (nil: every touch-capable device does).
    public var touchDeviceMatch: String?
    /// Stick travel (fraction of full) that counts as a direction.
    public var stickDeadzone: Double
    /// Which keyboard keys count (`[input] keyboards`).
    public var keyboards: KeyboardPolicy
    public var directory: String
    /// The coin mech: its device is read even when it has no other controls (a gpio-keys
    /// node with one pin), and its key is `.coin` there and nowhere else.
    public var coin = CoinMech()

    public init(transform: TouchTransform, touchDeviceMatch: String? = nil,
                stickDeadzone: Double = 0.5, keyboards: KeyboardPolicy = .all, directory: String = "/dev/input") {
        self.transform = transform
        self.touchDeviceMatch = touchDeviceMatch
        self.stickDeadzone = stickDeadzone
        self.keyboards = keyboards
        self.directory = directory
    }
}

/// Every input device of the kiosk, for its single-threaded poll loop: put
/// `pollDescriptors` in the poll set (POLLIN), call `handleReadable` for each readable one,
/// and `handleDeadline` once `nextDeadline` has passed (hotplug retries).
public final class InputSystem {
    public private(set) var config: InputConfig

    private final class OpenDevice {
        let device: EvdevDevice
        let serial: Int
        let deviceClass: DeviceClass
        var touch: TouchDecoder?
        var keys: KeyMapper?

        init(device: EvdevDevice, serial: Int, deviceClass: DeviceClass) {
            self.device = device
            self.serial = serial
            self.deviceClass = deviceClass
        }
    }

    private var devices: [String: OpenDevice] = [:]   // by node name ("event3")
    private var byFD: [FileDescriptor: String] = [:]
    private var hotplug: InputHotplug?
    private var nextSerial = 1
    /// Nodes that failed to open right after creation: udev sets their group and mode a
    /// moment later. Name -> (attempt count, next try time).
    private var retries: [String: (attempts: Int, due: Double)] = [:]
    /// Nodes we opened and rejected (ignored class, or not an evdev node): not retried.
    private var rejected: Set<String> = []
    /// Nodes still closed to us after every retry (udev slower than `retryDelays` on a busy
    /// board): opened when their permissions next change.
    private var waitingForAccess: Set<String> = []
    private var loggedMissingDirectory = false

    /// Seconds after creation at which a node that could not be opened is tried again.
    static let retryDelays: [Double] = [0.05, 0.15, 0.3, 0.5, 1.0]

    public init(config: InputConfig) {
        self.config = config
        do {
            hotplug = try InputHotplug(directory: config.directory)
        } catch {
            Log.warning("input: no hotplug (\(error)); devices are read once at start")
        }
        _ = rescan(now: monotonicSeconds())
    }

    /// Device fds and the inotify fd.
    public var pollDescriptors: [FileDescriptor] {
        var fds = devices.values.map(\.device.fd).sorted { $0.rawValue < $1.rawValue }
        if let hotplug { fds.append(hotplug.fd) }
        return fds
    }

    /// When `handleDeadline(now:)` should run next (nil: nothing pending).
    public var nextDeadline: Double? { retries.values.map(\.due).min() }

    /// Open devices, for the log and the operator menu: path, name, what it is.
    public var deviceSummaries: [(path: String, name: String, kind: String)] {
        devices.values.sorted { $0.device.path < $1.device.path }.map {
            ($0.device.path, $0.device.name, $0.deviceClass.summary)
        }
    }

    /// Rotation or calibration changed (operator menu): applies to every touch device now.
    public func updateTransform(_ transform: TouchTransform) {
        config.transform = transform
        for open in devices.values {
            open.touch?.mapping.transform = transform
        }
    }

    public func handleReadable(fd: FileDescriptor, now: Double) -> [InputEvent] {
        var output: [InputEvent] = []
        if let hotplug, fd == hotplug.fd {
            for change in hotplug.readChanges() {
                handle(change, now: now, into: &output)
            }
            return output
        }
        guard let name = byFD[fd], let open = devices[name] else { return output }
        var touches: [TouchEvent] = []
        var keys: [KeyEvent] = []
        let failure = open.device.readAvailable { item in
            switch item {
            case .event(let event):
                open.touch?.handle(event, into: &touches)
                open.keys?.handle(event, into: &keys)
            case .resyncBegin:
                // The loop fell behind the device (rate-limited by Log).
                Log.info("input: \(open.device.path): events dropped (SYN_DROPPED), resyncing")
                open.touch?.beginResync()
            case .resyncDone:
                break
            }
        }
        output += touches.map(InputEvent.touch)
        output += keys.map(InputEvent.key)
        if let failure {
            if failure.errno != ENODEV {
                Log.warning("input: \(failure); closing the device")
            }
            remove(name, now: now, into: &output)
        }
        return output
    }

    /// Retries nodes that could not be opened yet.
    public func handleDeadline(now: Double) -> [InputEvent] {
        var output: [InputEvent] = []
        for (name, retry) in retries where retry.due <= now {
            attemptOpen(name, now: now, into: &output)
        }
        return output
    }

    /// Opens every event node not open yet and drops those gone (start, VT re-acquire,
    /// inotify overflow).
    public func rescan(now: Double) -> [InputEvent] {
        var output: [InputEvent] = []
        guard Files.isDirectory(config.directory) else {
            if !loggedMissingDirectory {
                loggedMissingDirectory = true
                Log.notice("input: \(config.directory) does not exist; running without input devices until it appears")
            }
            for name in Array(devices.keys) { remove(name, now: now, into: &output) }
            return output
        }
        loggedMissingDirectory = false
        let present = Set(Files.listDirectory(config.directory).filter(Self.isEventNode))
        for name in Array(devices.keys) where !present.contains(name) {
            remove(name, now: now, into: &output)
        }
        rejected = rejected.intersection(present)
        for name in present.sorted() where devices[name] == nil && !rejected.contains(name) {
            attemptOpen(name, now: now, into: &output)
        }
        return output
    }

    static func isEventNode(_ name: String) -> Bool {
        name.hasPrefix("event") && name.count > 5 && name.dropFirst(5).allSatisfy { $0.isASCII && $0.isNumber }
    }

    private func handle(_ change: InputHotplug.Change, now: Double, into output: inout [InputEvent]) {
        switch change {
        case .created(let name):
            guard Self.isEventNode(name) else { return }
            rejected.remove(name)
            if devices[name] == nil { attemptOpen(name, now: now, into: &output) }
        case .attributesChanged(let name):
            // udev finished chmod/chgrp: the moment a pending node becomes openable.
            if retries[name] != nil || waitingForAccess.contains(name) { attemptOpen(name, now: now, into: &output) }
        case .deleted(let name):
            retries.removeValue(forKey: name)
            rejected.remove(name)
            waitingForAccess.remove(name)
            remove(name, now: now, into: &output)
        case .directoryAppeared:
            Log.info("input: \(config.directory) appeared")
            output += rescan(now: now)
        case .directoryGone:
            output += rescan(now: now)
        }
    }

    private func attemptOpen(_ name: String, now: Double, into output: inout [InputEvent]) {
        let path = config.directory + "/" + name
        let device: EvdevDevice
        do {
            device = try EvdevDevice(path: path)
        } catch {
            let transient = error.errno == EACCES || error.errno == EPERM || error.errno == ENOENT
                || error.errno == EBUSY
            let attempts = (retries[name]?.attempts ?? 0)
            if transient && attempts < Self.retryDelays.count {
                retries[name] = (attempts + 1, now + Self.retryDelays[attempts])
            } else {
                retries.removeValue(forKey: name)
                if error.errno == EACCES || error.errno == EPERM {
                    // Not yet ours: udev sets the group later still; its chmod wakes us.
                    if waitingForAccess.insert(name).inserted {
                        Log.warning("input: cannot use \(path) yet: \(error); opened when its permissions change")
                    }
                } else {
                    if error.errno != ENOENT { rejected.insert(name) }
                    Log.warning("input: cannot use \(path): \(error)")
                }
            }
            return
        }
        retries.removeValue(forKey: name)
        waitingForAccess.remove(name)
        var deviceClass = device.capabilities.classify()
        if case .touch = deviceClass, let match = config.touchDeviceMatch, !match.isEmpty,
           !(device.name.contains(match) || path == match) {
            deviceClass = .ignored(reason: "board profile names touch device \"\(match)\"")
        }
        let coinKey = config.coin.key.flatMap { device.capabilities.keys.contains($0) ? $0 : nil }
        let isCoinMech = coinKey != nil
            && config.coin.isMech(name: device.name, uniq: device.uniq, path: path, deviceClass: deviceClass)
        if case .ignored = deviceClass, isCoinMech {
            deviceClass = .keys(KeyDeviceInfo(isGamepad: false))
        }
        Log.info("input: \(path) \"\(device.name)\": \(deviceClass.summary)\(isCoinMech ? ", coin mech" : "")")
        let serial = nextSerial
        nextSerial += 1
        let open = OpenDevice(device: device, serial: serial, deviceClass: deviceClass)
        switch deviceClass {
        case .touch(let info):
            open.touch = TouchDecoder(info: info, transform: config.transform, deviceSerial: serial)
        case .keys(let info):
            open.keys = KeyMapper(axes: info.axes, deadzone: config.stickDeadzone, policy: config.keyboards)
            // Only on the mech: an arcade encoder (I-PAC and friends) is a full keyboard
            // whose coin input is this key, so the profile names it (docs/CONFIG.md, [coin]).
            if isCoinMech { open.keys?.coinCode = coinKey }
        case .ignored:
            // Closed again: an ignored device must not wake the loop.
            rejected.insert(name)
            return
        }
        devices[name] = open
        byFD[device.fd] = name
    }

    private func remove(_ name: String, now: Double, into output: inout [InputEvent]) {
        guard let open = devices.removeValue(forKey: name) else { return }
        byFD.removeValue(forKey: open.device.fd)
        Log.info("input: \(open.device.path) \"\(open.device.name)\" removed")
        if var touch = open.touch {
            output += touch.deviceRemoved(time: now).map(InputEvent.touch)
            open.touch = touch
        }
        if var keys = open.keys {
            output += keys.releaseAll(time: now).map(InputEvent.key)
            open.keys = keys
        }
    }
}
