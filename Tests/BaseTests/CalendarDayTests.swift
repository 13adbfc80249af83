// CalendarDay: YYYY-MM-DD, day numbers and the day arithmetic without Foundation's Calendar.
import Testing
@testable import Base

@Suite struct CalendarDayTests {
    @Test func parseValidateAndCount() throws {
        let d = try CalendarDay(parsing: "2024-02-29")
        #expect(d.description == "2024-02-29")
        #expect(try d.adding(days: 1).description == "2024-03-01")
        #expect(try d.adding(days: -60).description == "2023-12-31")
        #expect(try CalendarDay(parsing: "1970-01-01").dayNumber == 0)
        #expect(try CalendarDay(parsing: "2000-03-01").dayNumber == 11017)
        #expect(try CalendarDay(parsing: "2024-01-01").days(to: CalendarDay(parsing: "2025-01-01")) == 366)
        #expect(try CalendarDay(parsing: "2024-06-03").isoWeekday == 1) // a Monday
        // Round trip over a long span.
        for n in stride(from: -719_162, through: 2_932_896, by: 997) {
            #expect(try CalendarDay(dayNumber: n).dayNumber == n)
        }
    }

    @Test func onlyRealWellFormedDates() {
        for bad in ["2023-02-29", "2026-02-30", "2024-13-01", "2024-00-10", "2024-04-31", "1900-02-29", "24-01-01", "2024-1-01",
                    "2026-2-3", "2024/01/01", "2024-01-01T00:00", "2026-02-03x", "", "today", "abcd-ef-gh", "0000-01-01",
                    "２０２４-01-01", "+202-01-01", "2026-+1-05"] {
            #expect(throws: InvalidDate.self, "\(bad)") { try CalendarDay(parsing: bad) }
        }
        #expect(throws: InvalidDate("2024-02-30")) { try CalendarDay(parsing: "2024-02-30") }
        #expect(InvalidDate("2024-02-30").description == "invalid date \"2024-02-30\": use YYYY-MM-DD")
        #expect(InvalidDate(String(repeating: "9", count: 100)).text.count == 40)
        #expect((try? CalendarDay(parsing: "2024-02-29")) != nil)
        #expect((try? CalendarDay(parsing: "2000-02-29")) != nil)
        #expect(throws: InvalidDate.self) { try CalendarDay(dayNumber: 2_932_897) } // 10000-01-01
        #expect(throws: InvalidDate.self) { try CalendarDay(dayNumber: -719_163) } // 0000-12-31
    }

    /// The arithmetic for any day number (timestamps, rule offsets), past the checked years too.
    @Test func knownDayNumbersAndRoundTripsBeyondTheCheckedYears() {
        #expect(CalendarDay.dayNumber(year: 1970, month: 1, day: 1) == 0)
        #expect(CalendarDay.dayNumber(year: 1969, month: 12, day: 31) == -1)
        #expect(CalendarDay.text(dayNumber: 20_423) == "2025-12-01")
        #expect(CalendarDay.civil(11_016) == (2000, 2, 29))
        #expect(CalendarDay.text(dayNumber: 2_932_897) == "10000-01-01")
        for n in stride(from: -800_000, through: 3_000_000, by: 997) {
            let c = CalendarDay.civil(n)
            #expect(CalendarDay.dayNumber(year: c.year, month: c.month, day: c.day) == n)
            if (-719_162...2_932_896).contains(n) {
                #expect((try? CalendarDay(parsing: CalendarDay.text(dayNumber: n)))?.dayNumber == n)
            }
        }
    }

    @Test func codableAsText() throws {
        let d = try CalendarDay(parsing: "2026-11-29")
        #expect(CalendarDay.unixEpoch.description == "1970-01-01")
        #expect(d > CalendarDay.unixEpoch)
        #expect(try CalendarDay(year: 2026, month: 11, day: 29) == d)
        #expect(throws: InvalidDate("2026-2-30")) { try CalendarDay(year: 2026, month: 2, day: 30) }
    }
}
