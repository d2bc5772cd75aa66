import Arcade
import Graphics
import Platform
import UI
#if canImport(Glibc)
import Glibc
#endif

/// The peer: what a developer would use instead of Boardwalk's renderer is SDL2 with its
/// software renderer. The same composition (the menu's and the Beat Zombies lawn's
/// pieces: fills, rounded tiles, the same emoji pictures scaled, the same fonts and
/// strings at the same pixel sizes) is drawn full frame by Boardwalk's toolkit here and
/// by `bench/peers/sdl2-peer` (a C program `make bench` builds; the kiosk never links SDL)
/// into an SDL surface, in the same run. Each side draws the way it is meant to be used:
/// Boardwalk redraws its views; SDL copies textures made once (tiles, pictures, text).
struct Composition {
    enum Item {
        case fill(PixelRect, Color)
        /// A rounded panel (SDL gets it as a picture: SDL2 draws no rounded shapes).
        case tile(PixelRect, Color, radius: Int)
        case picture(String, PixelRect)
        case text(String, pixelSize: Int, bold: Bool, Color, PixelRect)
    }
    var name: String
    var width: Int, height: Int
    var items: [Item] = []

    /// Layout in the UI's points (800x480 and up), turned into pixels at the screen's scale.
    static func make(_ name: String, width: Int, height: Int) -> Composition {
        var c = Composition(name: name, width: width, height: height)
        let s = min(Double(width) / 800, Double(height) / 480)
        let pw = Double(width) / s, ph = Double(height) / s  // the screen in points
        func px(_ x: Double, _ y: Double, _ w: Double, _ h: Double) -> PixelRect {
            Rect(x * s, y * s, w * s, h * s).enclosingPixels
        }
        func text(_ t: String, _ style: TextStyle, _ r: PixelRect) -> Item {
            .text(t, pixelSize: Int((style.size * s).rounded()), bold: style.weight == .bold, style.color, r)
        }
        c.items.append(.fill(PixelRect(0, 0, width, height), Theme.background))
        if name == "menu" {
            c.items.append(text("Boardwalk", Theme.title, px(32, 24, 400, 50)))
            c.items.append(text("Tap a game to play", Theme.caption, px(32, 78, 400, 20)))
            let games = [("🧟", "Beat Zombies"), ("🍎", "Guess Picture"), ("🧠", "2048"), ("🎴", "Memory Match")]
            let gap = 24.0, tileW = (pw - 64 - gap * 3) / 4, tileH = min(260, ph - 170)
            for (i, g) in games.enumerated() {
                let x = 32 + Double(i) * (tileW + gap), y = 120.0
                c.items.append(.tile(px(x, y, tileW, tileH), Theme.surface, radius: Int((Theme.radius * s).rounded())))
                let icon = min(tileW - 40, tileH - 80)
                c.items.append(.picture(g.0, px(x + (tileW - icon) / 2, y + 16, icon, icon)))
                c.items.append(text(g.1, Theme.body.with(weight: .bold), px(x + 12, y + tileH - 48, tileW - 24, 28)))
            }
        } else {
            // The lawn: a top bar, stripes of grass, the house, a crowd of zombies.
            let bar = 64.0
            let stripes = 6
            let stripeH = (ph - bar) / Double(stripes)
            for i in 0..<stripes {
                let green = i % 2 == 0 ? Color(hex: 0x2F6B3A) : Color(hex: 0x357A42)
                c.items.append(.fill(px(0, bar + Double(i) * stripeH, pw, stripeH), green))
            }
            c.items.append(.fill(px(0, bar, 90, ph - bar), Color(hex: 0x6B4A2E)))
            c.items.append(.fill(px(0, 0, pw, bar), Theme.surface))
            c.items.append(text("Score 1234", Theme.heading, px(80, 14, 220, 36)))
            c.items.append(text("Best 5678", Theme.body.with(color: Theme.textDim), px(320, 20, 200, 28)))
            c.items.append(text("House 80%", Theme.body, px(pw - 220, 20, 200, 28)))
            c.items.append(.picture("🏠", px(8, 8, 48, 48)))
            var seed: UInt32 = 7
            for _ in 0..<14 {
                seed = seed &* 1_103_515_245 &+ 12345
                let zx = 120 + Double(seed >> 16) / 65536 * (pw - 220)
                seed = seed &* 1_103_515_245 &+ 12345
                let zy = bar + 10 + Double(seed >> 16) / 65536 * (ph - bar - 100)
                c.items.append(.picture("🧟", px(zx, zy, 72, 80)))
            }
        }
        return c
    }

    /// The pictures at the size the font draws them (scaled into their rects each frame).
    static func picture(_ emoji: String) -> Surface? {
        guard let scalar = emoji.unicodeScalars.first else { return nil }
        return UIEnvironment.fonts.emojiImage(scalar, pixelSize: FontLibrary.pictureSize(128))
    }

    /// Boardwalk's side: the items as views of a scene on a Screen.
    func scene(scale s: Double) -> Scene {
        let scene = Scene()
        func points(_ r: PixelRect) -> Rect { Rect(Double(r.x) / s, Double(r.y) / s, Double(r.width) / s, Double(r.height) / s) }
        for item in items {
            switch item {
            case .fill(let r, let color):
                scene.addSubview(DrawingView(frame: points(r)) { canvas, bounds in canvas.fill(bounds, color) })
            case .tile(let r, let color, let radius):
                let panel = Panel(frame: points(r), fill: color, radius: Double(radius) / s)
                panel.hasShadow = false
                scene.addSubview(panel)
            case .picture(let emoji, let r):
                scene.addSubview(ImageView(image: Composition.picture(emoji), frame: points(r)))
            case .text(let t, let size, let bold, let color, let r):
                let style = TextStyle(size: Double(size) / s, weight: bold ? .bold : .regular, color: color, alignment: .left)
                let label = Label(t, style: style, frame: points(r))
                label.wraps = false  // one line, as SDL_ttf draws it
                scene.addSubview(label)
            }
        }
        return scene
    }

    /// The peer's side: one item a line, pictures and tiles as PNG files in `directory`.
    func writePeerScript(to directory: String) throws -> String {
        var lines = ["size \(width) \(height)"]
        func rgba(_ c: Color) -> String { "\(c.r) \(c.g) \(c.b) \(c.a)" }
        func rect(_ r: PixelRect) -> String { "\(r.x) \(r.y) \(r.width) \(r.height)" }
        for (n, item) in items.enumerated() {
            switch item {
            case .fill(let r, let color):
                lines.append("fill \(rgba(color)) \(rect(r))")
            case .tile(let r, let color, let radius):
                let tile = Surface(width: r.width, height: r.height, format: .argb8888)
                Canvas(surface: tile).fillRoundedRect(Rect(0, 0, Double(r.width), Double(r.height)), radius: Double(radius), color)
                let path = "\(directory)/\(name)-tile-\(n).png"
                try tile.writePNG(path)
                lines.append("image \(rect(r)) \(path)")
            case .picture(let emoji, let r):
                let path = "\(directory)/\(name)-picture-\(n).png"
                guard let image = Composition.picture(emoji) else { continue }
                try image.writePNG(path)
                lines.append("image \(rect(r)) \(path)")
            case .text(let t, let size, let bold, let color, let r):
                let font = bold ? FontLibrary.boldFile.path : FontLibrary.regularFile.path
                lines.append("text \(size) \(rgba(color)) \(r.x) \(r.y) \(font) \(t)")
            }
        }
        let path = "\(directory)/\(name)-\(width)x\(height).txt"
        try Files.writeAtomically(path, text: lines.joined(separator: "\n") + "\n")
        return path
    }
}

/// `peer_sdl2_over_boardwalk` per scene and size: SDL2's median full frame over Boardwalk's (each
/// side run twice in turns, its faster median counted).
func peerBench(sizes: [(Int, Int)], frames: Int, directory: String) -> [ReportRow] {
    let peer = Boardwalk.sourceTreeRoot().map { $0 + "/bench/peers/sdl2-peer" }
    var rows: [ReportRow] = []
    for (w, h) in sizes {
        for name in ["menu", "lawn"] {
            let composition = Composition.make(name, width: w, height: h)
            let screen = Screen(width: w, height: h)
            screen.show(composition.scene(scale: screen.scale), now: 1)
            _ = screen.renderFrame(now: 1)
            func measureOurs() -> Timing {
                Timing.measure(count: frames) { i in
                    screen.invalidateAll()
                    _ = screen.renderFrame(now: 1 + Double(i + 1) / 60)
                }
            }
            var ours = measureOurs()
            // PEER_SHOTS=DIR: both pictures, to look at side by side.
            let shots = getenv("PEER_SHOTS").map { String(cString: $0) }
            if let shots { try? screen.shadow.writePNG("\(shots)/boardwalk-\(name)-\(w)x\(h).png") }
            var figures: [(String, Double)] = [("boardwalk_full_ms", ours.median * 1000)]
            var notes: [(String, String)] = []
            if let peer, access(peer, X_OK) == 0 {
                do {
                    let script = try composition.writePeerScript(to: directory)
                    let shot = shots.map { "\($0)/sdl2-\(name)-\(w)x\(h).png" }
                    // Each side twice, in turns, and each side's faster median: a busy
                    // moment of this shared machine on one side's only run had moved the
                    // ratio by 2x (1280x800's lawn 1.0-1.9 over five runs).
                    if var sdl = runPeer(peer, script: script, frames: frames, shot: shot) {
                        let again = measureOurs()
                        if again.median < ours.median { ours = again }
                        if let sdlAgain = runPeer(peer, script: script, frames: frames, shot: nil) { sdl = min(sdl, sdlAgain) }
                        figures[0] = ("boardwalk_full_ms", ours.median * 1000)
                        figures.append(("sdl2_full_ms", sdl * 1000))
                        figures.append(("peer_sdl2_over_boardwalk", sdl / ours.median))
                    } else {
                        notes.append(("peer", "sdl2-peer failed"))
                    }
                } catch {
                    notes.append(("peer", "cannot write the composition: \(error)"))
                }
            } else {
                notes.append(("peer", "bench/peers/sdl2-peer not built (make bench)"))
            }
            rows.append(ReportRow(section: "peer", name: "\(name)-\(w)x\(h)", figures: figures, notes: notes))
        }
    }
    return rows
}

/// Runs the peer on one composition; its median seconds per full frame.
private func runPeer(_ peer: String, script: String, frames: Int, shot: String?) -> Double? {
    let environment = shot.map { "SDL2_PEER_SHOT='\($0)' " } ?? ""
    guard let pipe = popen("\(environment)'\(peer)' '\(script)' \(frames)", "r") else { return nil }
    var output = ""
    var buffer = [CChar](repeating: 0, count: 512)
    while fgets(&buffer, Int32(buffer.count), pipe) != nil {
        let line = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        output += String(decoding: line, as: UTF8.self)
    }
    guard pclose(pipe) == 0 else { return nil }
    // The peer prints "median_ms N".
    for line in output.split(separator: "\n") where line.hasPrefix("median_ms ") {
        return Double(line.dropFirst(10)).map { $0 / 1000 }
    }
    return nil
}
