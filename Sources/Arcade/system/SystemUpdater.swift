import Platform

/// Where an update stands, as the operator's "Update from USB" page shows it.
public enum UpdateState: Equatable, Sendable {
    case idle
    /// Reading the bundle's version (`rauc info`).
    case inspecting(bundle: String)
    /// The bundle's version is known: it can be installed.
    case ready(bundle: String, version: String)
    case installing(bundle: String, version: String, percent: Int, step: String)
    /// Written to the other slot, which boots next.
    case installed(bundle: String, version: String)
    case failed(bundle: String, reason: String)

    public var isBusy: Bool {
        switch self {
        case .inspecting, .installing: return true
        default: return false
        }
    }
}

/// What installs system updates: RAUC on a cabinet (`RaucUpdater`), a scripted twin in
/// tests and headless runs (`SimulatedUpdater`). Work runs off the run loop; the page
/// polls it on its frames.
public protocol SystemUpdater: AnyObject {
    /// What finds update bundles (`*.raucb`) at the top of mounted USB sticks, sorted: a
    /// function that may run on another thread (a stick can stall).
    var bundleFinder: @Sendable () -> [String] { get }
    /// Starts reading a bundle's version: `.inspecting`, then `.ready` or `.failed`.
    func inspect(_ bundle: String)
    /// Starts installing an inspected bundle: `.installing`..., then `.installed` or `.failed`.
    func install(_ bundle: String)
    /// Where the work stands now; the page calls it once a frame while it shows.
    func poll() -> UpdateState
    /// An inspection or install is under way, read without moving anything on: the
    /// operator menu stays open for it (an install outlasts the idle timeout).
    var isWorking: Bool { get }
}

extension SystemUpdater {
    /// The bundles on the sticks now, on the caller's thread.
    func findBundles() -> [String] { bundleFinder() }

    /// The bundle file's name, for the screen.
    static func fileName(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }
}

/// Bundles on sticks: the mount points `MountedSticks` finds (mounted `/dev/sd*` file systems),
/// each one's top-level `*.raucb` files that are regular files (not a FIFO that would hang
/// the reader, a device, or a link out of the stick).
enum USBBundles {
    static func find(mounts: String, list: (String) -> [String] = Files.listDirectory,
                     isRegularFile: (String) -> Bool = Files.isRegularFile) -> [String] {
        var out: [String] = []
        for point in MountedSticks.mountPoints(mounts) {
            for name in list(point).sorted() where name.hasSuffix(".raucb") && !name.hasPrefix(".") {
                let path = point + "/" + name
                if isRegularFile(path) { out.append(path) }
            }
        }
        return out
    }
}

/// The headless twin: bundles and outcomes set by the test; an install walks through
/// `steps` one poll (one frame) at a time, then ends as `result` says.
public final class SimulatedUpdater: SystemUpdater {
    public var bundles: [String] = []
    /// Version per bundle path; a bundle missing here fails inspection with `inspectFailure`.
    public var versions: [String: String] = [:]
    public var inspectFailure = "not a bundle this cabinet accepts"
    /// Progress shown during an install (percent, step).
    public var steps: [(Int, String)] = [(0, "Installing"), (20, "Checking bundle"), (40, "Copying image to rootfs"),
                                         (80, "Marking slot active"), (100, "Installing done.")]
    /// nil: the install succeeds; else why it fails (after the steps).
    public var installFailure: String?
    /// Steps before an inspection ends (0: at once).
    public var inspectPolls = 0
    /// Holds the work where it is (a picture of one step).
    public var paused = false
    private var _state = UpdateState.idle
    private var pendingPolls = 0
    private var stepIndex = 0
    public private(set) var installed: [String] = []

    public init() {}

    public var bundleFinder: @Sendable () -> [String] { { [bundles] in bundles } }

    public func inspect(_ bundle: String) {
        _state = .inspecting(bundle: bundle)
        pendingPolls = inspectPolls
        if pendingPolls == 0 { finishInspection(bundle) }
    }

    public func install(_ bundle: String) {
        guard let version = versions[bundle] else {
            _state = .failed(bundle: bundle, reason: inspectFailure)
            return
        }
        stepIndex = 0
        let (percent, step) = steps.first ?? (0, "")
        _state = .installing(bundle: bundle, version: version, percent: percent, step: step)
    }

    /// Each poll moves the simulated work on a step.
    public func poll() -> UpdateState {
        if paused { return _state }
        switch _state {
        case .inspecting(let bundle):
            if pendingPolls > 0 { pendingPolls -= 1 } else { finishInspection(bundle) }
        case .installing(let bundle, let version, _, _):
            stepIndex += 1
            if stepIndex < steps.count {
                _state = .installing(bundle: bundle, version: version, percent: steps[stepIndex].0, step: steps[stepIndex].1)
            } else if let installFailure {
                _state = .failed(bundle: bundle, reason: installFailure)
            } else {
                installed.append(bundle)
                _state = .installed(bundle: bundle, version: version)
            }
        default: break
        }
        return _state
    }

    public var isWorking: Bool { _state.isBusy }

    /// The state without moving the simulation (for a picture of one step).
    public var currentState: UpdateState {
        get { _state }
        set { _state = newValue }
    }

    private func finishInspection(_ bundle: String) {
        if let version = versions[bundle] { _state = .ready(bundle: bundle, version: version) } else {
            _state = .failed(bundle: bundle, reason: inspectFailure)
        }
    }
}
