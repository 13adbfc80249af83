// Tests for meal defaults, times of day and calendar days.
import Testing
@testable import Nutrition

@Suite struct MealsTests {
    @Test(arguments: [("00:00", Meal.dinner), ("01:59", .dinner), ("02:00", .breakfast), ("11:59", .breakfast),
                      ("12:00", .lunch), ("17:59", .lunch), ("18:00", .dinner), ("23:59", .dinner)])
    func standardScheduleBoundaries(time: String, meal: Meal) throws {
        #expect(MealSchedule.standard.defaultMeal(at: try TimeOfDay(parsing: time)) == meal)
    }

    @Test func customScheduleAndSnackNeverDefault() throws {
        let s = try MealSchedule(breakfastStart: TimeOfDay(parsing: "05:30"), lunchStart: TimeOfDay(parsing: "11:00"),
                                 dinnerStart: TimeOfDay(parsing: "17:00"))
        #expect(s.defaultMeal(at: try TimeOfDay(parsing: "05:29")) == .dinner)
        #expect(s.defaultMeal(at: try TimeOfDay(parsing: "10:59")) == .breakfast)
        #expect(s.defaultMeal(at: try TimeOfDay(parsing: "16:00")) == .lunch)
        for m in 0..<1440 { #expect(s.defaultMeal(at: try TimeOfDay(minutes: m)) != .snack) }
        #expect(throws: NutritionError.self) {
            try MealSchedule(breakfastStart: TimeOfDay(parsing: "08:00"), lunchStart: TimeOfDay(parsing: "18:00"),
                             dinnerStart: TimeOfDay(parsing: "12:00"))
        }
        #expect(throws: NutritionError.self) {
            try MealSchedule(breakfastStart: TimeOfDay(parsing: "08:00"), lunchStart: TimeOfDay(parsing: "08:00"),
                             dinnerStart: TimeOfDay(parsing: "18:00"))
        }
    }

    @Test func badTimesAndMeals() throws {
        for t in ["24:00", "12:60", "7:5", "noon", "", "-1:00"] {
            #expect(throws: NutritionError.self) { try TimeOfDay(parsing: t) }
        }
        #expect(throws: NutritionError.unknownMeal("brunch")) { try Meal(parsing: "brunch") }
        #expect(try Meal(parsing: " Snacks ") == .snack)
        #expect(try Meal(parsing: "DINNER") == .dinner)
    }

    @Test func calendarDaysParseValidateAndCount() throws {
        let d = try CalendarDay(parsing: "2024-02-29")
        #expect(d.description == "2024-02-29")
        #expect(try d.adding(days: 1).description == "2024-03-01")
        #expect(try d.adding(days: -60).description == "2023-12-31")
        #expect(try CalendarDay(parsing: "1970-01-01").dayNumber == 0)
        #expect(try CalendarDay(parsing: "2000-03-01").dayNumber == 11017)
        #expect(try CalendarDay(parsing: "2024-01-01").days(to: CalendarDay(parsing: "2025-01-01")) == 366)
        #expect(try CalendarDay(parsing: "2024-06-03").isoWeekday == 1) // a Monday
        for bad in ["2023-02-29", "2024-13-01", "2024-00-10", "2024-04-31", "24-01-01", "2024-1-01", "2024/01/01",
                    "2024-01-01T00:00", "", "abcd-ef-gh", "0000-01-01", "２０２４-01-01"] {
            #expect(throws: NutritionError.self, "\(bad)") { try CalendarDay(parsing: bad) }
        }
        // Round trip over a long span.
        for n in stride(from: -719_162, through: 2_932_896, by: 997) {
            #expect(try CalendarDay(dayNumber: n).dayNumber == n)
        }
    }
}
