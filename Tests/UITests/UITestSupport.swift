import TestSupport
import XCTest
import Graphics
import Input
@testable import UI

/// Taps a point given in scene points through the screen's pixel input path.
func tap(_ screen: Screen, _ p: Point, id: Int = 1, at time: Double) {
    screen.handle(.touch(TouchEvent(phase: .down, id: id, x: p.x * screen.scale, y: p.y * screen.scale, time: time)))
    screen.handle(.touch(TouchEvent(phase: .up, id: id, x: p.x * screen.scale, y: p.y * screen.scale, time: time + 0.05)))
}

/// A scene with a bit of everything the toolkit offers.
final class DemoScene: Scene {
    let title = Label("Boardwalk", style: Theme.title)
    let play = Button("Play", icon: "🎮")
    let settings = Button("Settings", kind: .secondary)
    let disabled = Button("Locked", kind: .secondary)
    let panel = Panel()
    let emoji = ImageView(emoji: "🧟")
    let tabs = TabBar(titles: ["Game", "Settings", "Theme"])
    var plays = 0

    override init() {
        super.init()
        backgroundColor = Theme.background
        disabled.isEnabled = false
        play.action = { [weak self] in self?.plays += 1 }
        [panel, title, play, settings, disabled, emoji, tabs].forEach(addSubview)
    }

    override func layout() {
        title.frame = Rect(0, 20, size.width, 60)
        tabs.frame = Rect(40, 90, size.width - 80, 52)
        panel.frame = Rect(40, 160, size.width - 80, 200)
        emoji.frame = Rect(70, 190, 140, 140)
        play.frame = Rect(260, 190, 220, 64)
        settings.frame = Rect(260, 270, 220, 64)
        disabled.frame = Rect(500, 190, 220, 64)
    }
}
