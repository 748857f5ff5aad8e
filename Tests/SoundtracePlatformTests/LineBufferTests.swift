import Testing

@testable import SoundtracePlatform

/// Cutting a client's bytes into lines: the limit is on the line without "\n" or "\r\n".
@Suite struct LineBufferTests {
    let limit = 8

    func buffer(_ chunks: String...) -> LineBuffer {
        var buffer = LineBuffer(maxLineBytes: limit)
        for chunk in chunks { buffer.append(Array(chunk.utf8)[...]) }
        return buffer
    }

    @Test func linesEndInNewlineOrCRLF() {
        var lines = buffer("ping\nstat", "us\r\n")
        #expect(lines.next() == .line(Array("ping".utf8)))
        #expect(lines.next() == .line(Array("status\r".utf8)))
        #expect(lines.next() == nil)
        #expect(lines.count == 0)
    }

    @Test func aMaximalLineMayEndInCRLF() {
        var lf = buffer("12345678\n")
        #expect(lf.next() == .line(Array("12345678".utf8)))
        var crlf = buffer("12345678\r\n")
        #expect(crlf.next() == .line(Array("12345678\r".utf8)))
        // The "\r" may arrive before its "\n": the line is not refused while it could still be valid.
        var split = buffer("12345678\r")
        #expect(split.next() == nil)
        split.append(Array("\n".utf8)[...])
        #expect(split.next() == .line(Array("12345678\r".utf8)))
    }

    @Test func longerLinesAreRefusedCompleteOrNot() {
        var complete = buffer("123456789\n")
        #expect(complete.next() == .tooLong)
        var crlf = buffer("123456789\r\n")
        #expect(crlf.next() == .tooLong)
        var partial = buffer("123456789")
        #expect(partial.next() == .tooLong)
        var partialCR = buffer("12345678x\r")
        #expect(partialCR.next() == .tooLong)
        // Lines before the long one are still handed out first.
        var mixed = buffer("ping\n", "123456789")
        #expect(mixed.next() == .line(Array("ping".utf8)))
        #expect(mixed.next() == .tooLong)
    }
}
