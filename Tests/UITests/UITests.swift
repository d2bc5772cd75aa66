import TestSupport
import XCTest
import Graphics
import Input
@testable import UI

final class DamageTests: XCTestCase {
    func testNoChangeDrawsNothingAndOneButtonRedrawsOnlyItsRect() {
        let screen = Screen(width: 800, height: 480)
        let scene = DemoScene()
        screen.show(scene, now: 1)
        XCTAssertEqual(screen.renderFrame(now: 1.0).rects, [screen.shadow.bounds], "first frame is full")
        XCTAssertTrue(screen.renderFrame(now: 1.1).isEmpty, "nothing changed: nothing drawn")
        XCTAssertFalse(screen.wantsFrame)

        scene.settings.title = "Options"
        let damage = screen.renderFrame(now: 1.2)
        let expected = scene.settings.pixelRect(transform: scene.settings.superview!.transformToRoot
            .composed(withChildFrame: scene.settings.frame, scale: 1), screenScale: screen.scale)
        XCTAssertEqual(damage.rects, [expected])
        XCTAssertLessThan(damage.area, 240 * 90)
        XCTAssertTrue(screen.renderFrame(now: 1.3).isEmpty)
    }

    func testDamageMatchesFullRedraw() {
        // Drawing only the damage must give the same picture as drawing everything.
        let partial = Screen(width: 800, height: 480)
        let scene = DemoScene()
        partial.show(scene, now: 1)
        partial.renderFrame(now: 1)
        scene.emoji.frame = scene.emoji.frame.offsetBy(37, 11)
        scene.play.scale = 1.3
        scene.title.text = "Changed"
        partial.renderFrame(now: 1.1)

        let full = Screen(width: 800, height: 480)
        let scene2 = DemoScene()
        full.show(scene2, now: 1)
        scene2.emoji.frame = scene2.emoji.frame.offsetBy(37, 11)
        scene2.play.scale = 1.3
        scene2.title.text = "Changed"
        full.renderFrame(now: 1.1)
        let cmp = ImageComparison(partial.shadow, full.shadow, tolerance: 0)
        XCTAssertEqual(cmp.differingPixels, 0)
    }

    func testFullRedrawHidesWhatTheShadowHeld() {
        // The screen skips its clear under a scene that paints itself opaque on whole
        // pixels; every other scene is cleared first. Either way a full redraw over a
        // scribbled shadow must give the picture drawn over a clean one.
        // The menu's background: it fades down the screen, opaque or not.
        let gradient = VerticalGradient(top: Theme.backgroundTop, bottom: Theme.background)
        for (size, configure) in [((1280, 800), { (_: DemoScene, _: Screen) in }),  // opaque, clear skipped
                                  ((1366, 768), { _, _ in }),  // whatever the scale makes of its edges
                                  ((800, 480), { s, _ in s.backgroundColor = Theme.background.withAlpha(0.5) }),
                                  ((800, 480), { s, _ in s.cornerRadius = 24 }),
                                  ((800, 480), { s, _ in s.alpha = 0.7 }),
                                  ((800, 480), { _, screen in screen.contentOffset = Point(7, 3) }),
                                  ((1920, 1080), { s, _ in s.backgroundColor = nil; s.backgroundGradient = gradient }),
                                  ((800, 480), { s, _ in
                                      s.backgroundColor = nil
                                      s.backgroundGradient = VerticalGradient(top: gradient.top, bottom: gradient.bottom.withAlpha(0.6))
                                  })] {
            let (clean, scribbled) = (Screen(width: size.0, height: size.1), Screen(width: size.0, height: size.1))
            for screen in [clean, scribbled] {
                let scene = DemoScene()
                configure(scene, screen)
                screen.show(scene, now: 1)
            }
            scribbled.shadow.clear(to: Color(hex: 0xFF00FF))
            clean.renderFrame(now: 1)
            scribbled.renderFrame(now: 1)
            XCTAssertEqual(ImageComparison(clean.shadow, scribbled.shadow, tolerance: 0).differingPixels, 0, "\(size)")
        }
        let screen = Screen(width: 1280, height: 800), scene = DemoScene()
        screen.show(scene, now: 1)
        XCTAssertTrue(scene.paintsClipOpaquely(Canvas(surface: screen.shadow, scale: screen.scale),
                                               parent: .identity, screenScale: screen.scale), "the case the clear is skipped in")
        scene.backgroundColor = nil
        scene.backgroundGradient = gradient
        XCTAssertTrue(scene.paintsClipOpaquely(Canvas(surface: screen.shadow, scale: screen.scale),
                                               parent: .identity, screenScale: screen.scale), "an opaque gradient: skipped too")
    }

    func testRemovedViewLeavesNoTrace() {
        let screen = Screen(width: 800, height: 480)
        let scene = DemoScene()
        screen.show(scene, now: 1)
        screen.renderFrame(now: 1)
        let before = screen.shadow.copied()
        let extra = Panel(frame: Rect(300, 300, 100, 60), fill: Theme.error)
        scene.addSubview(extra)
        screen.renderFrame(now: 1.1)
        extra.removeFromSuperview()
        let damage = screen.renderFrame(now: 1.2)
        XCTAssertFalse(damage.isEmpty)
        XCTAssertEqual(ImageComparison(screen.shadow, before).differingPixels, 0)
    }
}

final class DemoSceneRenderTests: XCTestCase {
    func testDemoSceneReference() {
        let screen = Screen(width: 800, height: 480)
        let scene = DemoScene()
        screen.show(scene, now: 1)
        scene.focus(scene.settings)
        screen.renderFrame(now: 1)
        assertMatchesReference(screen.shadow, "demo-scene-800x480")
    }

    func testDemoSceneScalesTo1280x800() {
        let screen = Screen(width: 1280, height: 800)
        XCTAssertEqual(screen.scale, 1.6, accuracy: 1e-9)
        let scene = DemoScene()
        screen.show(scene, now: 1)
        screen.renderFrame(now: 1)
        assertMatchesReference(screen.shadow, "demo-scene-1280x800")
    }
}

final class InteractionTests: XCTestCase {
    func testButtonFiresOnReleaseInsideAndShowsPressedState() {
        let screen = Screen(width: 800, height: 480)
        let scene = DemoScene()
        screen.show(scene, now: 1)
        let c = scene.play.rectInRoot.center
        screen.handle(.touch(TouchEvent(phase: .down, id: 3, x: c.x, y: c.y, time: 1)))
        XCTAssertTrue(scene.play.isPressed)
        XCTAssertEqual(scene.plays, 0)
        screen.handle(.touch(TouchEvent(phase: .up, id: 3, x: c.x, y: c.y, time: 1.1)))
        XCTAssertFalse(scene.play.isPressed)
        XCTAssertEqual(scene.plays, 1)
        // Released far away: no action.
        screen.handle(.touch(TouchEvent(phase: .down, id: 4, x: c.x, y: c.y, time: 2)))
        screen.handle(.touch(TouchEvent(phase: .move, id: 4, x: 10, y: 470, time: 2.1)))
        XCTAssertFalse(scene.play.isPressed)
        screen.handle(.touch(TouchEvent(phase: .up, id: 4, x: 10, y: 470, time: 2.2)))
        XCTAssertEqual(scene.plays, 1)
    }

    func testDisabledButtonIgnoresTaps() {
        let screen = Screen(width: 800, height: 480)
        let scene = DemoScene()
        var fired = false
        scene.disabled.action = { fired = true }
        screen.show(scene, now: 1)
        tap(screen, scene.disabled.rectInRoot.center, at: 1)
        XCTAssertFalse(fired)
    }

    func testHoldButtonNeedsTheFullHold() {
        let screen = Screen(width: 800, height: 480)
        let scene = DemoScene()
        scene.settings.holdDuration = 0.8
        var homes = 0
        scene.settings.action = { homes += 1 }
        screen.show(scene, now: 1)
        let c = scene.settings.rectInRoot.center
        screen.handle(.touch(TouchEvent(phase: .down, id: 1, x: c.x, y: c.y, time: 1)))
        screen.renderFrame(now: 1.4)
        XCTAssertGreaterThan(scene.settings.holdProgress, 0.4)
        screen.handle(.touch(TouchEvent(phase: .up, id: 1, x: c.x, y: c.y, time: 1.5)))
        screen.renderFrame(now: 2.5)
        XCTAssertEqual(homes, 0, "a short press does nothing")
        screen.handle(.touch(TouchEvent(phase: .down, id: 2, x: c.x, y: c.y, time: 3)))
        screen.renderFrame(now: 3.5)
        screen.renderFrame(now: 3.9)
        XCTAssertEqual(homes, 1)
    }

    func testTwoFingersPressTwoButtonsAtOnce() {
        let screen = Screen(width: 800, height: 480)
        let scene = DemoScene()
        var settings = 0
        scene.settings.action = { settings += 1 }
        screen.show(scene, now: 1)
        let a = scene.play.rectInRoot.center, b = scene.settings.rectInRoot.center
        screen.handle(.touch(TouchEvent(phase: .down, id: 1, x: a.x, y: a.y, time: 1)))
        screen.handle(.touch(TouchEvent(phase: .down, id: 2, x: b.x, y: b.y, time: 1)))
        XCTAssertTrue(scene.play.isPressed && scene.settings.isPressed)
        screen.handle(.touch(TouchEvent(phase: .up, id: 2, x: b.x, y: b.y, time: 1.1)))
        screen.handle(.touch(TouchEvent(phase: .up, id: 1, x: a.x, y: a.y, time: 1.1)))
        XCTAssertEqual(scene.plays, 1)
        XCTAssertEqual(settings, 1)
    }

    func testArrowKeysMoveFocusAndEnterActivates() {
        let screen = Screen(width: 800, height: 480)
        let scene = DemoScene()
        screen.show(scene, now: 1)
        func key(_ k: Key) { screen.handle(.key(KeyEvent(key: k, isPressed: true, time: 1))) }
        key(.down)
        XCTAssertNotNil(scene.focusedView)
        scene.focus(scene.play)
        key(.down)
        XCTAssertTrue(scene.focusedView === scene.settings)
        key(.up)
        XCTAssertTrue(scene.focusedView === scene.play)
        key(.right)
        XCTAssertFalse(scene.focusedView === scene.disabled, "disabled buttons are skipped")
        scene.focus(scene.play)
        key(.confirm)
        XCTAssertEqual(scene.plays, 1)
    }

    func testDialogIsModalAndBackCancels() {
        let screen = Screen(width: 800, height: 480)
        let scene = DemoScene()
        screen.show(scene, now: 1)
        var answer = ""
        let dialog = Dialog(title: "Play again?", buttons: [("Yes", .primary, { answer = "yes" }), ("No", .secondary, { answer = "no" })])
        dialog.present(on: scene)
        screen.renderFrame(now: 2)
        tap(screen, scene.play.rectInRoot.center, at: 2)
        XCTAssertEqual(scene.plays, 0, "the cover swallows taps outside the dialog")
        screen.handle(.key(KeyEvent(key: .back, isPressed: true, time: 2)))
        XCTAssertEqual(answer, "no")
        XCTAssertNil(dialog.superview)
    }

    /// A long title and a paragraph of a message (the update's question, seen overlapping on
    /// the board): each gets the lines it wraps to, none runs into the next, all inside.
    func testDialogMakesRoomForLongTextsAtEverySize() {
        let title = "Install version 0123456789abcdef-dirty+bravo?"
        let message = String(repeating: "It is written beside the running system; the games keep running. ", count: 2)
        for (w, h) in [(800, 480), (480, 800), (1280, 800)] {
            let screen = Screen(width: w, height: h)
            let scene = DemoScene()
            screen.show(scene, now: 1)
            let dialog = Dialog(title: title, message: message, buttons: [("Install", .primary, {}), ("Cancel", .secondary, {})])
            dialog.present(on: scene)
            let width = dialog.titleLabel.frame.width
            XCTAssertGreaterThanOrEqual(dialog.titleLabel.frame.height, Dialog.wrappedHeight(dialog.titleLabel, width: width), "\(w)x\(h)")
            XCTAssertGreaterThanOrEqual(dialog.messageLabel.frame.height, Dialog.wrappedHeight(dialog.messageLabel, width: width), "\(w)x\(h)")
            XCTAssertLessThanOrEqual(dialog.titleLabel.frame.maxY, dialog.messageLabel.frame.minY, "\(w)x\(h)")
            XCTAssertLessThanOrEqual(dialog.messageLabel.frame.maxY, dialog.buttons[0].frame.minY, "\(w)x\(h)")
            XCTAssertLessThanOrEqual(dialog.buttons[0].frame.maxY, dialog.panel.frame.height, "\(w)x\(h)")
            XCTAssertLessThanOrEqual(dialog.panel.frame.height, Double(h), "\(w)x\(h)")
        }
    }
}

final class AnimationTests: XCTestCase {
    func testTweenChainsGrowThenShrink() {
        let animator = Animator()
        var scale = 1.0
        var done = false
        animator.update(now: 0)
        animator.tween(duration: 0.25, easing: .linear) { scale = lerp(1, 2, $0) }
            .then(duration: 0.25, easing: .linear) { scale = lerp(2, 0.5, $0) }
            .onComplete { done = true }
        animator.update(now: 0.125)
        XCTAssertEqual(scale, 1.5, accuracy: 1e-9)
        animator.update(now: 0.25)
        XCTAssertEqual(scale, 2, accuracy: 1e-9)
        animator.update(now: 0.375)
        XCTAssertEqual(scale, 1.25, accuracy: 1e-9)
        XCTAssertFalse(done)
        animator.update(now: 0.5)
        XCTAssertEqual(scale, 0.5, accuracy: 1e-9)
        XCTAssertTrue(done)
        XCTAssertFalse(animator.isAnimating)
    }

    func testFinishAllJumpsToTheEndOfChains() {
        let animator = Animator()
        var x = 0.0
        animator.tween(duration: 1) { x = $0 }.then(duration: 1) { x = 1 + $0 }
        animator.finishAll()
        XCTAssertEqual(x, 2)
        XCTAssertFalse(animator.isAnimating)
    }

    func testCancelledTweenNeverCompletes() {
        let animator = Animator()
        var completed = false
        let t = animator.tween(duration: 1) { _ in }.onComplete { completed = true }
        animator.update(now: 0.5)
        t.cancel()
        animator.update(now: 2)
        XCTAssertFalse(completed)
    }

    func testEasingEndpoints() {
        for e in [Easing.linear, .easeIn, .easeOut, .easeInOut, .backOut] {
            XCTAssertEqual(e.apply(0), 0, accuracy: 1e-9)
            XCTAssertEqual(e.apply(1), 1, accuracy: 1e-9)
        }
        XCTAssertGreaterThan(Easing.easeOut.apply(0.5), 0.5)
    }

    func testGridLayout() {
        let cells = GridLayout(columns: 7, rows: 3, spacing: 4).frames(in: Rect(0, 0, 700, 300))
        XCTAssertEqual(cells.count, 21)
        XCTAssertEqual(cells[6].maxX, 700, accuracy: 1e-9)
        let square = GridLayout(columns: 4, rows: 4).frames(in: Rect(0, 0, 800, 400), square: true)
        XCTAssertEqual(square[0].width, square[0].height)
    }
}
