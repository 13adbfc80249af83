// Personal targets from the profile: the life-stage group, Mifflin–St Jeor × activity and its
// replacement by an expenditure estimate, protein per kg, what has no DRI, goal provenance and
// weekday calorie targets.
import Base
import Foundation
import Testing
@testable import Nutrition

@Suite struct PersonalTargetsTests {
    let today = try! CalendarDay(parsing: "2026-12-02")
    let table = try! DRITable.bundled()

    func profile(_ sex: Sex, _ birth: String, cm: Double, _ activity: ActivityLevel, stage: LifeStage? = nil) throws -> Profile {
        Profile(sex: sex, birth: try CalendarDay(parsing: birth), heightCm: cm, activity: activity, lifeStage: stage)
    }

    @Test func mifflinStJeorTimesTheActivityFactorIsTheEnergyTarget() throws {
        // 10 × 68 + 6.25 × 168 − 5 × 35 − 161 = 1,394 kcal; × 1.55 = 2,160.7 → 2,160.
        #expect(PersonalTargets.mifflinStJeor(sex: .female, kg: 68, cm: 168, years: 35) == 1394)
        #expect(PersonalTargets.mifflinStJeor(sex: .male, kg: 82, cm: 180, years: 35) == 820 + 1125 - 175 + 5)
        let p = try profile(.female, "1991-06-01", cm: 168, .moderate)
        let e = PersonalTargets.energy(profile: p, ageYears: 35, weightKg: 68)
        #expect(e.kcal == 2160)
        #expect(e.method.contains("Mifflin–St Jeor") && e.method.contains("× 1.55") && e.method.contains("1,394 kcal at rest"))
    }

    @Test func anExpenditureEstimateReplacesTheEquation() throws {
        let p = try profile(.female, "1991-06-01", cm: 168, .moderate)
        let e = PersonalTargets.energy(profile: p, ageYears: 35, weightKg: 68, expenditureKcal: 2437)
        #expect(e.kcal == 2440)
        #expect(e.method.contains("expenditure estimate"))
        let plan = try PersonalTargets.plan(profile: p, today: today, weightKg: 68, expenditureKcal: 2437, current: .fdaDefaults,
                                            currentSources: GoalSources(), table: table)
        #expect(plan.goals["energy_kcal"] == 2440)
        #expect(plan.rows.first { $0.id == "energy_kcal" }?.basis == "expenditure")
    }

    @Test func withoutAWeightEnergyIsKeptAndProteinUsesTheTablesGramsADay() throws {
        let p = try profile(.male, "1991-06-01", cm: 180, .active)
        let plan = try PersonalTargets.plan(profile: p, today: today, weightKg: nil, current: .fdaDefaults, currentSources: GoalSources(), table: table)
        #expect(plan.energy.kcal == nil && plan.energy.method.contains("ofj weight"))
        let energy = try #require(plan.rows.first { $0.id == "energy_kcal" })
        #expect(energy.kept && plan.goals["energy_kcal"] == 2000)
        #expect(plan.goals["protein_g"] == 56)
        #expect(plan.sources.origin(of: "energy_kcal", in: plan.goals) == .fdaDefault)
    }

    @Test func proteinIsTheRDAPerKgOfTheWeightTrend() throws {
        let adult = try PersonalTargets.plan(profile: try profile(.male, "1991-06-01", cm: 180, .active), today: today, weightKg: 82.4,
                                             current: .fdaDefaults, currentSources: GoalSources(), table: table)
        #expect(adult.goals["protein_g"] == 66)  // 0.8 × 82.4 = 65.9
        let pregnant = try PersonalTargets.plan(profile: try profile(.female, "1998-05-20", cm: 165, .light, stage: .pregnant), today: today,
                                                weightKg: 70, current: .fdaDefaults, currentSources: GoalSources(), table: table)
        #expect(pregnant.group == .pregnancy19to30)
        #expect(pregnant.goals["protein_g"] == 77)  // 1.1 × 70
        #expect(pregnant.goals["iron_mg"] == 27 && pregnant.goals["folate_mcg"] == 600)
        #expect(pregnant.energy.notes.first?.contains("340 kcal") == true)
    }

    @Test func childrenGetTheirGroupButNoAdultEnergyEquation() throws {
        let child = try PersonalTargets.plan(profile: try profile(.male, "2018-03-10", cm: 128, .moderate), today: today, weightKg: 26,
                                             current: .fdaDefaults, currentSources: GoalSources(), table: table)
        #expect(child.group == .child4to8 && child.ageYears == 8)
        #expect(child.energy.kcal == nil && child.energy.method.contains("adults"))
        #expect(child.goals["calcium_mg"] == 1000 && child.goals["iron_mg"] == 10 && child.goals["sodium_mg"] == 1500)
        #expect(child.goals["protein_g"] == 25)  // 0.95 × 26 = 24.7
        #expect(child.sources.upperLimits["zinc_mg"]?.value == 12)
    }

    @Test func nutrientsWithoutADRIKeepTheirGoalAndItsOrigin() throws {
        let mine = try Goals.fdaDefaults.setting("saturated_fat_g", to: 15)
        let sources = GoalSources().afterPersonChange(from: .fdaDefaults, to: mine)
        let plan = try PersonalTargets.plan(profile: try profile(.female, "1991-06-01", cm: 168, .moderate), today: today, weightKg: 68,
                                            current: mine, currentSources: sources, table: table)
        let sat = try #require(plan.rows.first { $0.id == "saturated_fat_g" })
        #expect(sat.kept && sat.basis == "no DRI" && sat.value == 15)
        #expect(plan.sources.origin(of: "saturated_fat_g", in: plan.goals) == .person)
        #expect(plan.sources.origin(of: "cholesterol_mg", in: plan.goals) == .fdaDefault)
        #expect(plan.sources.origin(of: "iron_mg", in: plan.goals) == .profile)
        #expect(plan.sources.sources["iron_mg"]?.source?.contains("Elements RDA/AI") == true)
        // Sodium's goal is a limit: the CDRR, with the AI beside it.
        #expect(plan.goals["sodium_mg"] == 2300 && plan.rows.first { $0.id == "sodium_mg" }?.basis == "CDRR (AI 1,500)")
        // Fat: at most 35% of the energy target.
        #expect(plan.goals["fat_g"] == (2160 * 0.35 / 9).rounded())
    }

    @Test func anIncompleteProfileSaysWhichFieldsAreNeeded() {
        let p = Profile(sex: .female, activity: .light)
        #expect(PersonalTargets.missingFields(p) == ["birth", "height"])
        do {
            _ = try PersonalTargets.plan(profile: p, today: today, weightKg: nil, current: .fdaDefaults, currentSources: GoalSources(), table: table)
            Issue.record("an incomplete profile was planned")
        } catch let e as ProfileError {
            #expect(e.description.hasPrefix("goals from-profile needs birth and height in the profile"))
            #expect(e.description.contains("birth=YYYY-MM-DD") && !e.description.contains("\n"))
        } catch { Issue.record("\(error)") }
    }

    @Test func approvingThePlanTwiceChangesNothingTheSecondTime() throws {
        let p = try profile(.female, "1991-06-01", cm: 168, .moderate)
        let first = try PersonalTargets.plan(profile: p, today: today, weightKg: 68, current: .fdaDefaults, currentSources: GoalSources(), table: table)
        #expect(first.changes)
        let again = try PersonalTargets.plan(profile: p, today: today, weightKg: 68, current: first.goals, currentSources: first.sources, table: table)
        #expect(!again.changes)
    }

    // MARK: - Provenance and weekdays

    @Test func goalsWithoutProvenanceAreDefaultsWhenTheyEqualTheDailyValue() throws {
        let g = try Goals.fdaDefaults.setting("protein_g", to: 140)
        let s = GoalSources()
        #expect(s.origin(of: "protein_g", in: g) == .person)
        #expect(s.origin(of: "iron_mg", in: g) == .fdaDefault)
        #expect(s.tag(g, ids: ["energy_kcal", "protein_g"]) == "personal; FDA default: calories")
        #expect(s.tag(Goals.fdaDefaults, ids: ["energy_kcal", "protein_g"]) == "FDA defaults")
        #expect(s.describe("iron_mg", in: g).contains("FDA Daily Value default"))
        #expect(s.legend(.fdaDefaults).contains("ofj goals from-profile"))
    }

    @Test func aGoalTheyChangeByHandBecomesTheirsAndDropsTheWeekdayPlan() throws {
        var s = GoalSources(sources: ["energy_kcal": GoalSource(.profile, source: "x")], weekdayEnergy: [6: 2500])
        let new = try Goals.fdaDefaults.setting("energy_kcal", to: 1900)
        s = s.afterPersonChange(from: .fdaDefaults, to: new)
        #expect(s.sources["energy_kcal"] == GoalSource(.person))
        #expect(s.weekdayEnergy.isEmpty)
    }

    @Test func weekdayTargetsParseAndReplaceEnergyOnTheirDay() throws {
        let w = try GoalSources.parseWeekdays("mon-fri=2200,sat-sun=2500")
        #expect(w == [1: 2200, 2: 2200, 3: 2200, 4: 2200, 5: 2200, 6: 2500, 7: 2500])
        #expect(try GoalSources.parseWeekdays("weekend=2600") == [6: 2600, 7: 2600])
        #expect(try GoalSources.parseWeekdays("fri-mon=2400") == [5: 2400, 6: 2400, 7: 2400, 1: 2400])
        for bad in ["mon-fri=2200,fri=2000", "funday=2000", "mon=50", "mon", ""] {
            #expect(throws: NutritionError.self, "\(bad)") { try GoalSources.parseWeekdays(bad) }
        }
        let s = GoalSources(weekdayEnergy: w)
        let saturday = try CalendarDay(parsing: "2026-12-05")
        #expect(s.goals(.fdaDefaults, on: saturday)["energy_kcal"] == 2500)
        #expect(s.goals(.fdaDefaults, on: try saturday.adding(days: 2))["energy_kcal"] == 2200)
        let json = try JSONEncoderForTests.encode(s)
        #expect(json.contains("\"sat\":2500"))
        #expect(try JSONEncoderForTests.decode(GoalSources.self, json) == s)
    }
}
