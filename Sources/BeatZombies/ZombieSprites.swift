import Graphics
import Platform
import Synchronization

/// Zombie art: PNG sprite sheets, one per kind, described as the original demo's model did
/// (frame count, frame width and height). The built-in art is such a set in
/// `<data_dir>/zombies` (drawn by tools/make-zombie-art.py); an operator replaces it there.
///
/// `<directory>/sprites.json`:
///
///     {"lost": "house-lost.png", "tile": "tile.png", "window": "window.png",
///      "graves": ["grave-1.png", "grave-2.png"], "plants": ["flower.png", "tuft.png"],
///      "kinds": [
///       {"sheet": "walker.png", "frames": 31, "frameWidth": 125, "frameHeight": 108, "hit": "walker-hit.png"},
///       {"sheet": "brute.png",  "frames": 25, "frameWidth": 261, "frameHeight": 164},
///       ...up to four, in the order of `ZombieKind.all`; null leaves that kind to the fallback
///     ]}
///
/// A sheet holds its frames left to right, row after row, each `frameWidth` x `frameHeight`
/// pixels (any size: they are drawn scaled to the kind's size in points); the walk cycle
/// plays them over one second. "hit" is one frame of the same size shown while the zombie
/// is being beaten (without it, the walk frame); "lost" is the "zombies won" panel's picture,
/// "tile" the menu tile's, "window" the face at the house's windows, "graves" the stones at
/// the lawn's far edge and "plants" what grows on the lawn. Every picture is optional: a
/// set without one draws the lawn without it.
public struct ZombieSprites {
    public struct LoadError: Error, CustomStringConvertible, Equatable {
        public let file: String
        public let problem: String
        public var description: String { "\(file): \(problem)" }
    }

    /// Frames per kind index; a missing kind is drawn from the fallback emoji.
    public private(set) var frames: [Int: [Surface]] = [:]
    /// The hit pose per kind index, where the set has one.
    public private(set) var hitFrames: [Int: Surface] = [:]
    /// The "zombies won" panel's picture.
    public private(set) var lostPicture: Surface?
    /// The face at a window of the house, one per ten zombies inside.
    public private(set) var windowPicture: Surface?
    /// Gravestones and plants on the lawn.
    public private(set) var graves: [Surface] = []
    public private(set) var plants: [Surface] = []

    public init() {}

    /// Sets already read, by directory: the player's scene and the attract mode's share one
    /// copy of the pixels (the built-in set is ~7 MB decoded), read once per process. The
    /// kiosk reads them on a background thread after its first frame (`warmUp`), so the
    /// lock is held while a set is read: a scene asking meanwhile waits for that one read.
    nonisolated(unsafe) private static var loaded: [String: (sprites: ZombieSprites, errors: [LoadError])] = [:]
    private static let loadLock = Mutex<Void>(())

    /// `load(directory:)` once per directory; later calls return the same frames. Errors
    /// come back from the call that read the set only.
    public static func shared(directory: String) -> (sprites: ZombieSprites, errors: [LoadError]) {
        var result = (sprites: ZombieSprites(), errors: [LoadError]())
        loadLock.withLock { _ in
            if let set = loaded[directory] {
                result = (set.sprites, [])
            } else {
                result = load(directory: directory)
                loaded[directory] = result
            }
        }
        return result
    }

    /// Reads the description and every sheet it names. A kind whose sheet is missing or
    /// the wrong size is left out and reported; the others are kept.
    public static func load(directory: String) -> (sprites: ZombieSprites, errors: [LoadError]) {
        var sprites = ZombieSprites()
        var errors: [LoadError] = []
        let path = directory + "/sprites.json"
        guard Files.exists(path) else { return (sprites, []) }
        let root: JSONValue
        do {
            root = try JSONValue.parse(bytes: try Files.readBytes(path))
        } catch let error as JSONError {
            return (sprites, [LoadError(file: path, problem: "not valid JSON: \(error)")])
        } catch {
            return (sprites, [LoadError(file: path, problem: "\(error)")])
        }
        guard let kinds = root["kinds"]?.array else {
            return (sprites, [LoadError(file: path, problem: "needs \"kinds\": an array of up to \(ZombieKind.all.count) sheets")])
        }
        func picture(_ name: String?) -> Surface? {
            guard let name, !name.isEmpty else { return nil }
            let file = name.hasPrefix("/") ? name : directory + "/" + name
            do {
                return try Surface.loadPNG(file)
            } catch {
                errors.append(LoadError(file: file, problem: "\(error)"))
                return nil
            }
        }
        sprites.lostPicture = picture(root["lost"]?.string)
        sprites.windowPicture = picture(root["window"]?.string)
        sprites.graves = (root["graves"]?.array ?? []).compactMap { picture($0.string) }
        sprites.plants = (root["plants"]?.array ?? []).compactMap { picture($0.string) }
        for (index, entry) in kinds.enumerated() {
            if entry.isNull { continue }
            let label = "kind \(index + 1)"
            guard index < ZombieKind.all.count else {
                errors.append(LoadError(file: path, problem: "\(label): there are only \(ZombieKind.all.count) kinds"))
                continue
            }
            guard let sheet = entry["sheet"]?.string, !sheet.isEmpty else {
                errors.append(LoadError(file: path, problem: "\(label): needs \"sheet\", a PNG file name"))
                continue
            }
            guard let count = entry["frames"]?.int, count > 0, count <= 240,
                let width = entry["frameWidth"]?.int, width > 0, width <= 2048,
                let height = entry["frameHeight"]?.int, height > 0, height <= 2048
            else {
                errors.append(LoadError(file: path, problem: "\(label): needs \"frames\" (1-240), \"frameWidth\" and \"frameHeight\" (1-2048 pixels)"))
                continue
            }
            let sheetPath = sheet.hasPrefix("/") ? sheet : directory + "/" + sheet
            do {
                let image = try Surface.loadPNG(sheetPath)
                sprites.frames[index] = try slice(image, count: count, width: width, height: height, file: sheetPath)
                if let hit = entry["hit"]?.string, !hit.isEmpty {
                    let hitPath = hit.hasPrefix("/") ? hit : directory + "/" + hit
                    let hitImage = try Surface.loadPNG(hitPath)
                    sprites.hitFrames[index] = try slice(hitImage, count: 1, width: width, height: height, file: hitPath)[0]
                }
            } catch let error as LoadError {
                errors.append(error)
            } catch {
                errors.append(LoadError(file: sheetPath, problem: "\(error)"))
            }
        }
        return (sprites, errors)
    }

    /// Only the menu tile's picture (`"tile"`), read without the sheets: the menu is drawn
    /// before the sheets are decoded. Nil when the set names none or it can't be read.
    public static func tilePicture(directory: String) -> Surface? {
        guard let bytes = try? Files.readBytes(directory + "/sprites.json"),
            let root = try? JSONValue.parse(bytes: bytes), let name = root["tile"]?.string, !name.isEmpty
        else { return nil }
        return try? Surface.loadPNG(name.hasPrefix("/") ? name : directory + "/" + name)
    }

    /// Cuts a sheet into frames, left to right and top to bottom.
    static func slice(_ sheet: Surface, count: Int, width: Int, height: Int, file: String) throws(LoadError) -> [Surface] {
        let columns = sheet.width / width
        let rows = sheet.height / height
        guard columns > 0, rows > 0, columns * rows >= count else {
            throw LoadError(file: file, problem: "a \(sheet.width)x\(sheet.height) sheet can't hold \(count) frames of \(width)x\(height)")
        }
        var frames: [Surface] = []
        frames.reserveCapacity(count)
        for index in 0..<count {
            let x0 = (index % columns) * width
            let y0 = (index / columns) * height
            let frame = Surface(width: width, height: height, format: .argb8888)
            for row in 0..<height {
                let source = sheet.pixels + (y0 + row) * sheet.stride + x0 * 4
                (frame.pixels + row * frame.stride).copyMemory(from: source, byteCount: width * 4)
            }
            frames.append(frame)
        }
        return frames
    }
}
