/// The Raspberry Pi's 40-pin header (every model since the B+, Pi 5 included), for telling a
/// person setting up a kiosk which physical pin a line name is on.
public enum HeaderPins {
    /// The physical pin of `GPIO<n>`, or nil for names that are not on the header.
    public static func pin(ofLine name: String) -> Int? {
        guard name.hasPrefix("GPIO"), let number = Int(name.dropFirst(4)) else { return nil }
        return pinOfGPIO[number]
    }

    /// Ground pins, for the button's other side and the LEDs' cathodes.
    public static let ground = [6, 9, 14, 20, 25, 30, 34, 39]

    private static let pinOfGPIO: [Int: Int] = [
        2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18, 10: 19, 9: 21,
        25: 22, 11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32, 13: 33, 19: 35, 16: 36, 26: 37,
        20: 38, 21: 40
    ]
}
