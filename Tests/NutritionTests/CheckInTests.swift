// The goal check-in (issue 33 §5): target = expenditure + rate × 7,700 kcal/kg ÷ 7, never below
// the floor, with the reasoning in one line; nothing proposed without a goal or an estimate.
import Testing
import Base
import Foundation
@testable import Nutrition

@Suite struct CheckInTests {
    func estimate(_ kcal: Double?) throws -> ExpenditureEstimate {
        let day = try CalendarDay(parsing: "2025-03-01")
        var e = Expenditure.estimate(on: day, intake: [:], weights: [])
        e.expenditureKcal = kcal
        e.uncertaintyKcal = kcal == nil ? nil : 60
        e.confidence = kcal == nil ? nil : .high
        return e
    }

    @Test func aTargetComesFromTheExpenditureAndTheRate() throws {
        let p = Profile(sex: .male, goal: .lose, rateKgPerWeek: 0.5)
        let c = try CheckIn.propose(estimate: try estimate(2_512), profile: p, currentGoalKcal: 2_200)
        #expect(c.targetKcal == 1_960)
        #expect(c.floorApplied == nil && !c.isNoChange)
        #expect(c.reasoning == "Your expenditure is 2,512 kcal a day (± 60, high confidence); to lose 0.5 kg a week eat 550 kcal less (7,700 kcal per kg ÷ 7 days): 1,960 kcal.")
        #expect(!c.reasoning.contains("\n"))
        let gain = try CheckIn.propose(estimate: try estimate(2_512), profile: Profile(goal: .gain, rateKgPerWeek: 0.25), currentGoalKcal: nil)
        #expect(gain.targetKcal == 2_790)
        let keep = try CheckIn.propose(estimate: try estimate(2_512), profile: Profile(goal: .maintain), currentGoalKcal: 2_500)
        #expect(keep.targetKcal == 2_510 && keep.isNoChange)
    }

    @Test func theFloorIs1200KcalForWomenAnd1500ForMen() throws {
        let woman = Profile(sex: .female, goal: .lose, rateKgPerWeek: 1)
        let c = try CheckIn.propose(estimate: try estimate(1_900), profile: woman, currentGoalKcal: 2_000)
        #expect(c.targetKcal == 1_200 && c.floorApplied == 1_200)
        #expect(c.reasoning.contains("below the floor of 1,200 kcal for women: 1,200 kcal, losing about 0.64 kg a week"))
        let man = try CheckIn.propose(estimate: try estimate(2_000), profile: Profile(sex: .male, goal: .lose, rateKgPerWeek: 1), currentGoalKcal: nil)
        #expect(man.targetKcal == 1_500 && man.floorApplied == 1_500)
        let unset = try CheckIn.propose(estimate: try estimate(2_000), profile: Profile(goal: .lose, rateKgPerWeek: 1), currentGoalKcal: nil)
        #expect(unset.targetKcal == 1_500)
    }

    @Test func aGoalRateTakesKgOrLbAWeekAndMaintainHasNone() throws {
        let p = try Profile().setting("goal", to: "lose").setting("rate", to: "1lb/week")
        #expect(abs((p.rateKgPerWeek ?? 0) - 0.4536) < 0.001)
        #expect(try p.setting("goal", to: "maintain").rateKgPerWeek == nil)
        #expect(throws: ProfileError.self) { try Profile().setting("rate", to: "3kg/week") }
        #expect(throws: ProfileError.self) { try Profile().setting("rate", to: "fast") }
        let both = try Profile().setting("goal", to: "maintain").setting("rate", to: "0.5kg/week")
        #expect(both.problem(today: try CalendarDay(parsing: "2025-01-01")) == "goal=maintain takes no rate")
    }

    @Test func withoutAGoalOrAnEstimateNothingIsProposed() throws {
        #expect(throws: CheckInUnavailable.self) { try CheckIn.propose(estimate: try estimate(2_500), profile: Profile(), currentGoalKcal: nil) }
        #expect(throws: CheckInUnavailable.self) { try CheckIn.propose(estimate: try estimate(2_500), profile: Profile(goal: .lose), currentGoalKcal: nil) }
        do {
            _ = try CheckIn.propose(estimate: try estimate(nil), profile: Profile(goal: .lose, rateKgPerWeek: 0.5), currentGoalKcal: nil)
            Issue.record("proposed without an estimate")
        } catch let e as CheckInUnavailable {
            #expect(e.description.hasPrefix("not enough data for an expenditure estimate yet: needs 14 more logged days and 8 more weigh-ins"))
        }
    }
}
