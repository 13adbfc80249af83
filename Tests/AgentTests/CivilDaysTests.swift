// CivilDays: day numbers and YYYY-MM-DD without Foundation's Calendar.
import Testing
@testable import Agent

@Suite struct CivilDaysTests {
    @Test func knownDaysAndRoundTrips() {
        #expect(CivilDays.dayNumber("1970-01-01") == 0)
        #expect(CivilDays.dayNumber("2000-03-01") == 11_017)
        #expect(CivilDays.dayNumber("1969-12-31") == -1)
        #expect(CivilDays.format(20_423) == "2025-12-01")
        #expect(CivilDays.civil(11_016) == (2000, 2, 29))
        for n in stride(from: -719_162, through: 2_932_896, by: 997) { // 0001-01-01 through 9999-12-31
            #expect(CivilDays.dayNumber(CivilDays.format(n)) == n)
        }
    }

    @Test func onlyRealWellFormedDates() {
        for bad in ["2026-02-29", "2026-02-30", "2026-04-31", "1900-02-29", "2026-13-01", "2026-00-10", "2026-2-3", "26-02-03",
                    "2026-02-03x", "2026/02/03", "", "today"] {
            #expect(CivilDays.dayNumber(bad) == nil, "\(bad)")
        }
        #expect(CivilDays.dayNumber("2024-02-29") != nil)
        #expect(CivilDays.dayNumber("2000-02-29") != nil)
    }
}
