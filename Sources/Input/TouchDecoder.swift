/// How a touch device reports contacts (Documentation/input/multi-touch-protocol.rst).
public enum TouchProtocol: Sendable, Equatable {
    /// Protocol B: ABS_MT_SLOT + ABS_MT_TRACKING_ID, state kept per slot by the kernel.
    case slots(count: Int)
    /// Protocol A: every frame lists all contacts, each closed by SYN_MT_REPORT.
    case anonymous
    /// One contact: ABS_X/ABS_Y + BTN_TOUCH (resistive panels such as ADS7846).
    case singleTouch
    /// An absolute pointer used as one finger: ABS_X/ABS_Y + BTN_LEFT (QEMU's tablet).
    case absolutePointer
}

/// What the decoder must know about a touch device.
public struct TouchDeviceInfo: Sendable, Equatable {
    public var touchProtocol: TouchProtocol
    public var x: AxisRange
    public var y: AxisRange
    /// The slot the kernel has active when reading starts (protocol B).
    public var initialSlot: Int

    public init(touchProtocol: TouchProtocol, x: AxisRange, y: AxisRange, initialSlot: Int = 0) {
        self.touchProtocol = touchProtocol
        self.x = x
        self.y = y
        self.initialSlot = initialSlot
    }
}

/// Turns one touch device's raw evdev events into `TouchEvent`s in screen pixels.
///
/// Pure state machine: no I/O, time comes with the events. Changes are collected per
/// frame and emitted at SYN_REPORT. SYN_DROPPED follows libevdev's rules: the partial
/// frame is discarded; then either the caller feeds libevdev's resync delta after
/// `beginResync()` (live devices), or, for a raw stream with nobody to ask the kernel
/// (recordings), everything up to and including the next SYN_REPORT is dropped and the
/// contacts whose fate is unknown are cancelled - a cancelled touch is harmless where a
/// phantom tap is not. Protocol A needs neither: its next frame is the whole state.
public struct TouchDecoder: Sendable {
    public let info: TouchDeviceInfo
    public var mapping: TouchMapping

    /// Contact ids are `idBase + n`; give each device a distinct base (see `init`).
    private let idBase: Int
    private var nextSerial = 1

    /// The most slots a device may claim; more is a lie that would only cost memory.
    static let maximumSlots = 64
    /// Protocol A frames with more contacts than this are cut (fuzzed or broken drivers).
    static let maximumAnonymousContacts = 16

    // Raw stream after a SYN_DROPPED: ignore until the next SYN_REPORT.
    private var dropping = false
    // Protocol A after a libevdev resync: its delta frame is not a full report.
    private var skippingFrame = false

    // Protocol B state.
    private struct Slot {
        var trackingID: Int32 = -1
        var x: Int32 = 0
        var y: Int32 = 0
        var contact: Int?          // our id while a contact is live
        // The values at the last SYN_REPORT, restored when a frame is dropped.
        var committedTrackingID: Int32 = -1
        var committedX: Int32 = 0
        var committedY: Int32 = 0
        var began = false          // a new contact starts at this frame's end
        var ended = false          // the live contact ends at this frame's end
        var moved = false
        var dirty = false
    }
    private var slots: [Slot] = []
    private var currentSlot: Int = 0
    private var committedSlot: Int = 0
    private var dirtySlots: [Int] = []

    // Single touch and pointer state (also protocol A's axis accumulator).
    private var x: Int32 = 0
    private var y: Int32 = 0
    private var committedX: Int32 = 0
    private var committedY: Int32 = 0
    private var keyDown = false
    private var committedKeyDown = false
    private var singleContact: Int?
    private var pressed = false
    private var released = false
    private var moved = false

    // Protocol A state.
    private struct AnonymousContact {
        var x: Int32
        var y: Int32
        var trackingID: Int32?
        var id: Int = 0
    }
    private var pendingX: Int32?
    private var pendingY: Int32?
    private var pendingTrackingID: Int32?
    private var frameContacts: [AnonymousContact] = []
    private var anonymousContacts: [AnonymousContact] = []

    /// - Parameter deviceSerial: a number no other device of this process has had; it makes
    ///   contact ids unique across devices and across hotplug.
    public init(info: TouchDeviceInfo, transform: TouchTransform, deviceSerial: Int) {
        self.info = info
        self.mapping = TouchMapping(x: info.x, y: info.y, transform: transform)
        self.idBase = deviceSerial << 32
        if case .slots(let count) = info.touchProtocol {
            slots = Array(repeating: Slot(), count: min(max(count, 1), Self.maximumSlots))
            currentSlot = info.initialSlot
            committedSlot = info.initialSlot
        }
    }

    /// Contacts currently down (ids), for tests and diagnostics.
    public var liveContacts: [Int] {
        switch info.touchProtocol {
        case .slots: return slots.compactMap(\.contact)
        case .anonymous: return anonymousContacts.map(\.id)
        case .singleTouch, .absolutePointer: return singleContact.map { [$0] } ?? []
        }
    }

    public mutating func handle(_ event: RawInputEvent) -> [TouchEvent] {
        var output: [TouchEvent] = []
        handle(event, into: &output)
        return output
    }

    public mutating func handle(_ event: RawInputEvent, into output: inout [TouchEvent]) {
        if event.type == EV.syn {
            switch event.code {
            case EV.synReport:
                if dropping {
                    dropping = false
                    cancelAfterDrop(time: event.time, into: &output)
                } else if skippingFrame {
                    skippingFrame = false
                } else {
                    commitFrame(time: event.time, into: &output)
                }
            case EV.synDropped:
                discardPartialFrame()
                dropping = true
            case EV.synMTReport:
                if !dropping && !skippingFrame { closeAnonymousContact() }
            default:
                break
            }
            return
        }
        if dropping || skippingFrame { return }
        switch info.touchProtocol {
        case .slots: handleSlotEvent(event)
        case .anonymous: handleAnonymousEvent(event)
        case .singleTouch: handleSingleEvent(event, key: EV.btnTouch)
        case .absolutePointer: handleSingleEvent(event, key: EV.btnLeft)
        }
    }

    /// libevdev reported SYN_DROPPED (LIBEVDEV_READ_STATUS_SYNC): the partial frame is
    /// thrown away and the events that follow (read with LIBEVDEV_READ_FLAG_SYNC, ending in
    /// SYN_REPORT) are the delta to the device's true state, applied as one frame: contacts
    /// that ended meanwhile complete with `up`, new ones begin, moved ones move.
    public mutating func beginResync() {
        discardPartialFrame()
        dropping = false
        if info.touchProtocol == .anonymous { skippingFrame = true }
    }

    /// The device is gone: every live contact is cancelled.
    public mutating func deviceRemoved(time: Double) -> [TouchEvent] {
        var output: [TouchEvent] = []
        discardPartialFrame()
        dropping = false
        skippingFrame = false
        cancelAll(time: time, into: &output)
        return output
    }

    // MARK: - Frames

    private mutating func discardPartialFrame() {
        for index in dirtySlots {
            slots[index].trackingID = slots[index].committedTrackingID
            slots[index].x = slots[index].committedX
            slots[index].y = slots[index].committedY
            slots[index].began = false
            slots[index].ended = false
            slots[index].moved = false
            slots[index].dirty = false
        }
        dirtySlots.removeAll(keepingCapacity: true)
        currentSlot = committedSlot
        x = committedX
        y = committedY
        keyDown = committedKeyDown
        pressed = false
        released = false
        moved = false
        pendingX = nil
        pendingY = nil
        pendingTrackingID = nil
        frameContacts.removeAll(keepingCapacity: true)
    }

    private mutating func cancelAfterDrop(time: Double, into output: inout [TouchEvent]) {
        // Protocol A: the next frame carries the whole state and reconciles by itself.
        if info.touchProtocol == .anonymous { return }
        cancelAll(time: time, into: &output)
    }

    private mutating func cancelAll(time: Double, into output: inout [TouchEvent]) {
        for index in slots.indices {
            if let id = slots[index].contact {
                emit(.cancel, id, slots[index].committedX, slots[index].committedY, time, &output)
                slots[index].contact = nil
            }
        }
        if let id = singleContact {
            emit(.cancel, id, committedX, committedY, time, &output)
            singleContact = nil
        }
        // A press seen after this is a new contact; a finger still down stays ignored
        // until it lifts, since the kernel won't repeat its press.
        keyDown = false
        committedKeyDown = false
        for contact in anonymousContacts {
            emit(.cancel, contact.id, contact.x, contact.y, time, &output)
        }
        anonymousContacts.removeAll()
    }

    private mutating func commitFrame(time: Double, into output: inout [TouchEvent]) {
        switch info.touchProtocol {
        case .slots: commitSlots(time: time, into: &output)
        case .anonymous: commitAnonymous(time: time, into: &output)
        case .singleTouch, .absolutePointer: commitSingle(time: time, into: &output)
        }
    }

    private mutating func emit(_ phase: TouchPhase, _ id: Int, _ rawX: Int32, _ rawY: Int32,
                               _ time: Double, _ output: inout [TouchEvent]) {
        let point = mapping.map(rawX: rawX, rawY: rawY)
        output.append(TouchEvent(phase: phase, id: id, x: point.x, y: point.y, time: time))
    }

    private mutating func newContactID() -> Int {
        defer { nextSerial += 1 }
        return idBase + nextSerial
    }

    // MARK: - Protocol B

    private mutating func markDirty(_ index: Int) {
        if !slots[index].dirty {
            slots[index].dirty = true
            dirtySlots.append(index)
        }
    }

    private mutating func handleSlotEvent(_ event: RawInputEvent) {
        guard event.type == EV.abs else { return }
        if event.code == EV.absMTSlot {
            currentSlot = Int(event.value)
            return
        }
        // Events for a slot the device never declared are dropped, not trusted.
        guard currentSlot >= 0 && currentSlot < slots.count else { return }
        let index = currentSlot
        switch event.code {
        case EV.absMTPositionX:
            markDirty(index)
            slots[index].x = event.value
            slots[index].moved = true
        case EV.absMTPositionY:
            markDirty(index)
            slots[index].y = event.value
            slots[index].moved = true
        case EV.absMTTrackingID:
            markDirty(index)
            var slot = slots[index]
            if event.value < 0 {
                if slot.began {
                    slot.began = false    // began and ended inside one frame: never seen
                } else if slot.contact != nil {
                    slot.ended = true
                }
            } else if event.value != slot.trackingID || (slot.contact == nil && !slot.began) {
                // A new id in a slot that still holds a contact ends the old one first.
                if !slot.began && slot.contact != nil { slot.ended = true }
                slot.began = true
            }
            slot.trackingID = event.value
            slots[index] = slot
        default:
            break
        }
    }

    private mutating func commitSlots(time: Double, into output: inout [TouchEvent]) {
        for index in dirtySlots {
            var slot = slots[index]
            if slot.ended, let id = slot.contact {
                // With a new contact in the same frame the new position is not the old one's.
                if slot.began {
                    emit(.up, id, slot.committedX, slot.committedY, time, &output)
                } else {
                    emit(.up, id, slot.x, slot.y, time, &output)
                }
                slot.contact = nil
            }
            if slot.began {
                let id = newContactID()
                slot.contact = id
                // X or Y not sent: the kernel omits unchanged values, so the slot's last
                // value is the position.
                emit(.down, id, slot.x, slot.y, time, &output)
            } else if let id = slot.contact, slot.moved,
                      slot.x != slot.committedX || slot.y != slot.committedY {
                emit(.move, id, slot.x, slot.y, time, &output)
            }
            slot.committedTrackingID = slot.trackingID
            slot.committedX = slot.x
            slot.committedY = slot.y
            slot.began = false
            slot.ended = false
            slot.moved = false
            slot.dirty = false
            slots[index] = slot
        }
        dirtySlots.removeAll(keepingCapacity: true)
        committedSlot = currentSlot
    }

    // MARK: - Single touch and pointer

    private mutating func handleSingleEvent(_ event: RawInputEvent, key: UInt16) {
        if event.type == EV.abs {
            if event.code == EV.absX {
                x = event.value
                moved = true
            } else if event.code == EV.absY {
                y = event.value
                moved = true
            }
        } else if event.type == EV.key && event.code == key {
            if event.value != 0 {
                guard !keyDown else { return }   // autorepeat (2) or a repeated press
                keyDown = true
                pressed = true
            } else {
                guard keyDown else { return }
                keyDown = false
                if pressed {
                    pressed = false
                } else if singleContact != nil {
                    released = true
                }
            }
        }
    }

    private mutating func commitSingle(time: Double, into output: inout [TouchEvent]) {
        if released, let id = singleContact {
            if pressed {
                emit(.up, id, committedX, committedY, time, &output)
            } else {
                emit(.up, id, x, y, time, &output)
            }
            singleContact = nil
        }
        if pressed {
            let id = newContactID()
            singleContact = id
            emit(.down, id, x, y, time, &output)
        } else if let id = singleContact, moved, x != committedX || y != committedY {
            emit(.move, id, x, y, time, &output)
        }
        committedX = x
        committedY = y
        committedKeyDown = keyDown
        pressed = false
        released = false
        moved = false
    }

    // MARK: - Protocol A

    private mutating func handleAnonymousEvent(_ event: RawInputEvent) {
        guard event.type == EV.abs else { return }
        switch event.code {
        case EV.absMTPositionX: pendingX = event.value
        case EV.absMTPositionY: pendingY = event.value
        case EV.absMTTrackingID: pendingTrackingID = event.value
        default: break
        }
    }

    private mutating func closeAnonymousContact() {
        defer {
            pendingX = nil
            pendingY = nil
            pendingTrackingID = nil
        }
        // Protocol A resends every axis of every contact: a contact without both is no
        // contact (an empty SYN_MT_REPORT means "no fingers").
        guard let px = pendingX, let py = pendingY else { return }
        if let id = pendingTrackingID, id < 0 { return }
        guard frameContacts.count < Self.maximumAnonymousContacts else { return }
        frameContacts.append(AnonymousContact(x: px, y: py, trackingID: pendingTrackingID))
    }

    private mutating func commitAnonymous(time: Double, into output: inout [TouchEvent]) {
        closeAnonymousContact()
        var current = frameContacts
        frameContacts.removeAll(keepingCapacity: true)
        var previous = anonymousContacts
        var matchedPrevious = Array(repeating: false, count: previous.count)
        var assigned = Array(repeating: -1, count: current.count)

        // Contacts that carry a tracking id keep it.
        for i in current.indices {
            guard let tid = current[i].trackingID else { continue }
            if let j = previous.indices.first(where: { !matchedPrevious[$0] && previous[$0].trackingID == tid }) {
                assigned[i] = j
                matchedPrevious[j] = true
            }
        }
        // The rest pair with the nearest contact of the last frame, closest pairs first,
        // as the kernel's input_mt_assign_slots does for anonymous contacts.
        var pairs: [(distance: UInt64, current: Int, previous: Int)] = []
        for i in current.indices where assigned[i] < 0 && current[i].trackingID == nil {
            for j in previous.indices where !matchedPrevious[j] && previous[j].trackingID == nil {
                pairs.append((Self.squaredDistance(current[i], previous[j]), i, j))
            }
        }
        pairs.sort { $0.distance < $1.distance }
        for pair in pairs where assigned[pair.current] < 0 && !matchedPrevious[pair.previous] {
            assigned[pair.current] = pair.previous
            matchedPrevious[pair.previous] = true
        }

        for j in previous.indices where !matchedPrevious[j] {
            emit(.up, previous[j].id, previous[j].x, previous[j].y, time, &output)
        }
        for i in current.indices {
            if assigned[i] >= 0 {
                let old = previous[assigned[i]]
                current[i].id = old.id
                if old.x != current[i].x || old.y != current[i].y {
                    emit(.move, old.id, current[i].x, current[i].y, time, &output)
                }
            } else {
                current[i].id = newContactID()
                emit(.down, current[i].id, current[i].x, current[i].y, time, &output)
            }
        }
        previous.removeAll()
        anonymousContacts = current
    }

    /// Squared distance of two contacts, exact for any Int32 coordinates: a difference
    /// spans up to 2^32 - 1, whose square fits a UInt64 but not an Int64; the sum saturates.
    private static func squaredDistance(_ a: AnonymousContact, _ b: AnonymousContact) -> UInt64 {
        let dx = (Int64(a.x) - Int64(b.x)).magnitude
        let dy = (Int64(a.y) - Int64(b.y)).magnitude
        let (sum, overflow) = (dx * dx).addingReportingOverflow(dy * dy)
        return overflow ? .max : sum
    }
}
