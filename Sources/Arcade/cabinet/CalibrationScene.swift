import Graphics
import UI

/// Four-point touch calibration: the operator taps a cross in each corner; the kiosk
/// delivers those touches uncalibrated, and the matrix that carries them onto the crosses
/// is handed back (nil when cancelled). Taps that disagree ask for another round.
final class CalibrationScene: Scene {
    var onDone: (([Double]?) -> Void)?
    private let targets = Calibration.targets()
    private var touched: [Calibration.Point] = []
    private let message = Label("", style: Theme.body)
    private let cross = DrawingView { canvas, r in
        canvas.line(from: Point(r.midX, r.minY), to: Point(r.midX, r.maxY), width: 3, Theme.accent)
        canvas.line(from: Point(r.minX, r.midY), to: Point(r.maxX, r.midY), width: 3, Theme.accent)
        canvas.strokeEllipse(r.insetBy(r.width * 0.3, r.height * 0.3), width: 3, Theme.text)
    }
    private let cancel: Button
    private let words: OperatorWords

    init(language: Language = .english) {
        words = OperatorWords(language)
        cancel = Button(words.cancel, kind: .secondary)
        super.init()
        backgroundColor = Theme.background
        addSubview(message)
        addSubview(cross)
        addSubview(cancel)
        cancel.action = { [weak self] in self?.onDone?(nil) }
        cross.isUserInteractionEnabled = false
        message.isUserInteractionEnabled = false
    }

    override func layout() {
        message.frame = Rect(60, size.height / 2 - 50, size.width - 120, 100)
        cancel.frame = Rect(size.width / 2 - 80, size.height / 2 + 60, 160, 56)
        place()
    }

    private func place() {
        let t = targets[touched.count % targets.count]
        cross.frame = Rect(center: Point(t.x * size.width, t.y * size.height), size: Size(60, 60))
        message.text = words.tapTheCross(touched.count + 1, of: targets.count)
    }

    override func touchBegan(_ touch: Touch) {
        touched.append(Calibration.Point(touch.rootLocation.x / size.width, touch.rootLocation.y / size.height))
        guard touched.count == targets.count else { return place() }
        if let fit = Calibration.solve(targets: targets, touched: touched), fit.isPlausible {
            onDone?(fit.matrix)
        } else {
            touched.removeAll()
            place()
            message.text = words.tapsDisagree + " " + message.text
        }
    }

    override func handleBack() { onDone?(nil) }
}
