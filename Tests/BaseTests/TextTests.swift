// The small text helpers and UTC timestamps shared by every module that writes fixed-width figures.
import Testing
import Base

@Suite struct TextTests {
    @Test func zeroPaddingKeepsLongerNumbersWhole() {
        #expect(zeroPadded(7, width: 2) == "07")
        #expect(zeroPadded(2026, width: 4) == "2026")
        #expect(zeroPadded(12345, width: 4) == "12345")
        #expect(zeroPadded(Int64(5), width: 3) == "005")
        #expect(zeroPadded(0, width: 0) == "0")
    }

    @Test func utcTimestampsAreFixedWidthAndSortAsTime() {
        #expect(UTCTimestamp.iso8601(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(UTCTimestamp.iso8601(milliseconds: 1_800_000_000_123) == "2027-01-15T08:00:00.123Z")
        #expect(UTCTimestamp.iso8601(milliseconds: 951_782_400_000) == "2000-02-29T00:00:00.000Z")
        #expect(UTCTimestamp.iso8601(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        var previous = ""
        for ms in stride(from: Int64(-86_400_000 * 3), through: 86_400_000 * 400, by: 86_399_997) {
            let text = UTCTimestamp.iso8601(milliseconds: ms)
            #expect(text.count == 24)
            #expect(previous < text)
            previous = text
        }
    }
}
