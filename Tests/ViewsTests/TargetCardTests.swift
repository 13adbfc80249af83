// Issue 33 §2: the approval card of `ofj goals from-profile` for several life-stage groups, pinned
// by golden files, and the goals view with its markers and legend.
import Base
import Foundation
import Testing
import Nutrition
import TestSupport
import Views

@Suite struct TargetCardTests {
    static let golden = OfjBinary.repositoryRoot + "/Tests/Golden/targets/"
    static let today = try! CalendarDay(parsing: "2026-12-02")

    func expectGolden(_ text: String, _ name: String) throws {
        let path = Self.golden + name
        if ProcessInfo.processInfo.environment["OFJ_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(atPath: Self.golden, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        }
        let expected = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text == expected, "\(name) differs from its golden file; run with OFJ_UPDATE_GOLDEN=1 and review the diff")
    }

    /// The people of the golden cards: name, profile, weight trend (nil: none logged), weekday targets.
    static let people: [(name: String, profile: Profile, kg: Double?, weekdays: String?)] = [
        ("female-35", Profile(sex: .female, birth: try! CalendarDay(parsing: "1991-06-01"), heightCm: 168, activity: .moderate), 68, nil),
        ("male-35", Profile(sex: .male, birth: try! CalendarDay(parsing: "1991-06-01"), heightCm: 180, activity: .active), 82.4,
         "mon-fri=2600,sat-sun=3000"),
        ("child-8", Profile(sex: .male, birth: try! CalendarDay(parsing: "2018-03-10"), heightCm: 128, activity: .moderate), 26, nil),
        ("pregnant-28", Profile(sex: .female, birth: try! CalendarDay(parsing: "1998-05-20"), heightCm: 165, activity: .light, lifeStage: .pregnant), 70, nil),
        ("male-75", Profile(sex: .male, birth: try! CalendarDay(parsing: "1951-01-15"), heightCm: 175, activity: .sedentary, units: .imperial), 78, nil),
        ("lactating-32-no-weight", Profile(sex: .female, birth: try! CalendarDay(parsing: "1994-08-30"), heightCm: 160, activity: .light, lifeStage: .lactating), nil, nil),
    ]

    @Test(arguments: people.map(\.name))
    func theCardForEachLifeStageGroupIsAsPinned(name: String) throws {
        let person = try #require(Self.people.first { $0.name == name })
        let weekdays = try person.weekdays.map(GoalSources.parseWeekdays) ?? [:]
        let plan = try PersonalTargets.plan(profile: person.profile, today: Self.today, weightKg: person.kg, current: .fdaDefaults,
                                            currentSources: GoalSources(), weekdays: weekdays, table: try DRITable.bundled())
        let card = TargetCard.render(plan, profile: person.profile, weightNote: person.kg == nil ? nil : "weight trend on 2026-12-01")
        try expectGolden(card + "\n", "card-\(name).txt")
        // Every nutrient with a target has a row that names its basis and its source.
        let targets = NutrientCatalog.all.filter { $0.dailyValue != nil }.map(\.id)
        #expect(plan.rows.map(\.id) == targets)
        for r in plan.rows { #expect(!r.source.isEmpty && !r.basis.isEmpty, "\(r.id)") }
    }

    @Test func theGoalsViewMarksEachGoalsOriginAndExplainsTheMarkers() throws {
        let person = Self.people[0]
        let plan = try PersonalTargets.plan(profile: person.profile, today: Self.today, weightKg: person.kg, current: .fdaDefaults,
                                            currentSources: GoalSources(), weekdays: try GoalSources.parseWeekdays("sat-sun=2400"),
                                            table: try DRITable.bundled())
        var sources = plan.sources
        let mine = try plan.goals.setting("water_g", to: 2500)
        sources = sources.afterPersonChange(from: plan.goals, to: mine)
        let view = JournalViews.goals(mine, sources: sources)
        try expectGolden(view + "\n", "goals-view-personal.txt")
        let defaults = JournalViews.goals(.fdaDefaults)
        #expect(defaults.hasPrefix("Daily goals (FDA defaults)"))
        #expect(defaults.contains("ofj goals from-profile"))
    }
}
