#if canImport(Glibc)
import Glibc
#endif
import CEvdev
import Platform

/// One /dev/input/event* device through libevdev. Owns the fd and the libevdev context;
/// deinit frees them in reverse order of setup.
public final class EvdevDevice {
    public let path: String
    public let fd: FileDescriptor
    public let name: String
    /// The device's unique id (`uniq`: a serial number, often empty).
    public let uniq: String
    public let capabilities: DeviceCapabilities
    private let device: OpaquePointer

    /// What a read produced, in order.
    public enum Item {
        case event(RawInputEvent)
        /// SYN_DROPPED: the partial frame is void; the `.event`s that follow, up to the
        /// next `.resyncDone`, are libevdev's delta to the device's true state.
        case resyncBegin
        case resyncDone
    }

    /// Opens the device non-blocking. Throws naming the call and the path; EACCES right after
    /// hotplug means udev has not set the permissions yet (see `InputHotplug`).
    public init(path: String) throws(SystemError) {
        let fd = try FileDescriptor.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        var device: OpaquePointer?
        let rc = libevdev_new_from_fd(fd.rawValue, &device)
        guard rc == 0, let device else {
            fd.close()
            throw SystemError("libevdev_new_from_fd", path, errno: -rc)
        }
        // Event times on the kiosk's clock, not wall time that NTP may step.
        _ = libevdev_set_clock_id(device, CLOCK_MONOTONIC)
        self.path = path
        self.fd = fd
        self.device = device
        self.name = String(cString: libevdev_get_name(device))
        self.uniq = libevdev_get_uniq(device).map { String(cString: $0) } ?? ""
        self.capabilities = Self.readCapabilities(device, name: name)
    }

    deinit {
        libevdev_free(device)
        fd.close()
    }

    /// The slot the kernel has active, for a protocol-B decoder started mid-stream.
    public var currentSlot: Int { Int(libevdev_get_current_slot(device)) }

    /// Reads what is pending (bounded, so a flooding device can't starve the loop; poll
    /// wakes us again). Returns the error when the device is gone (ENODEV) or unreadable:
    /// the caller then treats it as removed. nil: all read, device fine.
    public func readAvailable(_ body: (Item) -> Void) -> SystemError? {
        var flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue
        var event = input_event()
        for _ in 0..<4096 {
            let rc = libevdev_next_event(device, flags, &event)
            if rc == Int32(LIBEVDEV_READ_STATUS_SUCCESS.rawValue) || rc == Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue) {
                if flags == LIBEVDEV_READ_FLAG_NORMAL.rawValue && rc == Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue) {
                    flags = LIBEVDEV_READ_FLAG_SYNC.rawValue
                    body(.resyncBegin)
                    continue
                }
                body(.event(RawInputEvent(
                    time: Double(event.time.tv_sec) + Double(event.time.tv_usec) / 1e6,
                    type: event.type, code: event.code, value: event.value)))
            } else if rc == -EAGAIN {
                if flags == LIBEVDEV_READ_FLAG_SYNC.rawValue {
                    flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue
                    body(.resyncDone)
                    continue
                }
                return nil
            } else if rc == -EINTR {
                continue
            } else {
                return SystemError("libevdev_next_event", path, errno: -rc)
            }
        }
        return nil
    }

    private static func readCapabilities(_ device: OpaquePointer, name: String) -> DeviceCapabilities {
        var caps = DeviceCapabilities(name: name)
        for code in 0...UInt32(KEY_MAX) where libevdev_has_event_code(device, UInt32(EV_KEY), code) != 0 {
            caps.keys.insert(UInt16(code))
        }
        for code in 0...UInt32(REL_MAX) where libevdev_has_event_code(device, UInt32(EV_REL), code) != 0 {
            caps.relative.insert(UInt16(code))
        }
        for code in 0...UInt32(SW_MAX) where libevdev_has_event_code(device, UInt32(EV_SW), code) != 0 {
            caps.switches.insert(UInt16(code))
        }
        for code in 0...UInt32(ABS_MAX) where libevdev_has_event_code(device, UInt32(EV_ABS), code) != 0 {
            guard let info = libevdev_get_abs_info(device, code)?.pointee else { continue }
            caps.absolute[UInt16(code)] = AxisInfo(
                minimum: info.minimum, maximum: info.maximum, fuzz: info.fuzz, flat: info.flat,
                resolution: info.resolution, value: info.value)
        }
        for prop in 0...UInt32(INPUT_PROP_MAX) where libevdev_has_property(device, prop) != 0 {
            caps.properties.insert(UInt16(prop))
        }
        if caps.absolute[EV.absMTSlot] != nil {
            // The slot the kernel is on now, not at creation: the decoder starts from here.
            caps.absolute[EV.absMTSlot]?.value = libevdev_get_current_slot(device)
        }
        return caps
    }
}
