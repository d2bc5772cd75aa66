import Graphics
import UI

/// An on/off setting as a switch: a lit track with the knob at the right and "On" beside
/// it, or a dark track with the knob at the left and "Off". One word, the state now (a row
/// that read "On [Off]" left the operator guessing which was the state and which the
/// button). Tapping flips it; its title is the state word (for tests and the text check).
final class OnOffSwitch: Button {
    static let width = 112.0
    private let words: OperatorWords
    var isOn = false {
        didSet {
            title = isOn ? words.on : words.off
            if isOn != oldValue { setNeedsDisplay() }
        }
    }

    init(words: OperatorWords) {
        self.words = words
        super.init(words.off, kind: .secondary)
    }

    override func draw(_ canvas: Canvas) {
        let h = min(bounds.height, 44.0)
        let track = Rect(bounds.minX, bounds.midY - h / 2, bounds.width, h)
        var fill = isOn ? Theme.accent : Theme.surface
        if isPressed { fill = fill.darker(0.25) }
        canvas.fillRoundedRect(track, radius: h / 2, fill)
        if !isOn { canvas.strokeRoundedRect(track, radius: h / 2, width: 2, Theme.textDim) }
        if isFocused {
            canvas.strokeRoundedRect(track.insetBy(-4, -4), radius: h / 2 + 4, width: 3, Theme.text)
        }
        let knob = h / 2 - 5
        let knobX = isOn ? track.maxX - h / 2 : track.minX + h / 2
        canvas.fillCircle(center: Point(knobX, track.midY), radius: knob, isOn ? Theme.accentText : Theme.textDim)
        // The word on the side the knob left.
        let wordRect = isOn ? Rect(track.minX + 8, track.minY, track.width - h - 8, h)
            : Rect(track.minX + h, track.minY, track.width - h - 8, h)
        let style = Theme.button.with(color: isOn ? Theme.accentText : Theme.textDim)
        canvas.drawText(title, in: wordRect, style: style, fonts: UIEnvironment.fonts, wrap: false)
    }
}
