// Tests for meal defaults and times of day (calendar days: BaseTests).
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
}
