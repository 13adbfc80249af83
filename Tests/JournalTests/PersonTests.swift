// The profile, standing notes and weigh-ins (issue 33): impossible profiles store nothing, each
// write undoes, backups carry them, and the weight trend has no start-up bias.
import Testing
import Base
import Foundation
import Nutrition
import SQLiteKit
@testable import Journal

@Suite struct PersonTests {
    func set(_ p: Profile, _ pairs: [(String, String)]) throws -> Profile {
        try pairs.reduce(p) { try $0.setting($1.0, to: $1.1) }
    }

    @Test func aProfileIsSetFromKeyValueTextInAnyHeightUnitAndStored() throws {
        let (store, _) = try makeStore()
        let p = try set(Profile(), [("sex", "female"), ("birth", "1990-03-15"), ("height", "5ft6in"), ("activity", "moderate"),
                                    ("goal", "lose"), ("rate", "0.5kg/week")])
        #expect(abs((p.heightCm ?? 0) - 167.64) < 0.01)
        try store.setProfile(p)
        #expect(try store.profile() == p)
        #expect(p.age(on: store.today()) == 34)
        #expect(try Profile.parseHeight("1.8m", units: .metric) == 180)
        #expect(abs(try Profile.parseHeight("71", units: .imperial) - 180.34) < 0.01)
        #expect(try Profile.parseHeight("180", units: .metric) == 180)
        #expect(abs(try Profile.parseRate("1lb/week", units: .metric) - 0.4536) < 0.001)
    }

    @Test func impossibleProfilesAreOneLineAndStoreNothing() throws {
        let (store, _) = try makeStore()
        #expect(throws: ProfileError.self) { try Profile().setting("height", to: "30m") }
        #expect(throws: ProfileError.self) { try Profile().setting("sex", to: "other") }
        #expect(throws: ProfileError.self) { try Profile().setting("birth", to: "1990-13-01") }
        let future = try set(Profile(), [("birth", "2030-01-01")])
        #expect(throws: JournalError.self) { try store.setProfile(future) }
        let pregnantMale = try set(Profile(), [("sex", "male"), ("life_stage", "pregnant")])
        do { try store.setProfile(pregnantMale); Issue.record("stored") } catch {
            #expect("\(error)".contains("life_stage=pregnant needs sex=female"))
            #expect(!"\(error)".contains("\n"))
        }
        #expect(try count(store, "journal_settings") == 0)
        #expect(try store.profile().isEmpty)
    }

    @Test func profileNotesAndWeighInsUndoLikeOtherWrites() throws {
        let (store, _) = try makeStore()
        try store.setProfile(try set(Profile(), [("sex", "male"), ("height", "180cm")]))
        try store.setNotes("allergic to peanuts")
        try store.setNotes("allergic to peanuts; usual coffee: 250 ml flat white")
        var plan = try store.undoPlan(last: 1)
        #expect(plan.lines(in: testZone).joined(separator: "\n").contains("changed the standing notes"))
        try store.undo(last: 1, expected: plan.steps.map(\.id))
        #expect(try store.notes() == "allergic to peanuts")
        try store.logWeight(kg: 80.4, source: "cli")
        #expect(try store.weighIns().map(\.kg) == [80.4])
        plan = try store.undoPlan(last: 1)
        #expect(plan.lines(in: testZone).joined().contains("logged a weigh-in of 80.4 kg on 2024-05-01"))
        try store.undo(last: 1, expected: plan.steps.map(\.id))
        #expect(try store.weighIns().isEmpty)
        #expect(try store.profile().heightCm == 180)
    }

    @Test func aWeighInOutsideTwoTo650KgIsRefused() throws {
        let (store, _) = try makeStore()
        #expect(throws: JournalError.self) { try store.logWeight(kg: 0, source: "cli") }
        #expect(throws: JournalError.self) { try store.logWeight(kg: 900, source: "cli") }
        #expect(try count(store, "journal_weights") == 0)
    }

    @Test func aBackupCarriesTheProfileNotesAndWeighIns() throws {
        let (a, _) = try makeStore()
        try a.setProfile(try set(Profile(), [("sex", "female"), ("units", "imperial")]))
        try a.setNotes("vegetarian")
        try a.logWeight(kg: 61.2, source: "cli")
        let data = try a.exportBackup()
        let (b, _) = try makeStore()
        let r = try b.importBackup(data)
        #expect(r.profileChanged && r.weightsInserted == 1)
        #expect(try b.profile() == a.profile())
        #expect(try b.notes() == "vegetarian")
        #expect(try b.weighIns() == a.weighIns())
        #expect(try b.importBackup(data).changedNothing)
    }

    @Test func theTrendHasNoStartUpBiasAndTheRateHasNoLag() throws {
        // A steady loss of 0.1 kg a day from 90 kg with alternating ±0.8 kg noise.
        let start = try CalendarDay(parsing: "2024-01-01")
        let readings = try (0..<60).map { i in
            WeightReading(day: try start.adding(days: i), kg: 90 - 0.1 * Double(i) + (i % 2 == 0 ? 0.8 : -0.8))
        }
        let points = WeightTrend.points(readings)
        // Day 2's trend is close to the mean of the first two readings, not pinned to the first.
        #expect(abs(points[1].trend - (points[0].mean + points[1].mean) / 2) < 0.1)
        // A seeded EWMA would keep 90% of the first reading's +0.8 on day 2.
        #expect(abs(points[1].trend - 89.95) < 0.1)
        let slope = try #require(WeightTrend.slopePerDay(points, endingOn: try start.adding(days: 59)))
        // The alternating noise moves a 28-day fit by ~0.006 kg/day; an EWMA's recent change would lag far more.
        #expect(abs(slope + 0.1) < 0.01)
        // Several weigh-ins on one day are one reading: their mean.
        let d = try CalendarDay(parsing: "2024-03-01")
        let same = WeightTrend.points([WeightReading(day: d, kg: 80), WeightReading(day: d, kg: 81)])
        #expect(same.count == 1 && same[0].mean == 80.5 && same[0].weighIns == 2)
    }
}
