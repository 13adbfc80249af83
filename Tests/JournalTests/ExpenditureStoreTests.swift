// Day marks and the intake the expenditure estimate reads from the journal (issue 33 §4): marks
// undo and back up, unlogged days are absent, incomplete ones left out, and the estimate reads both.
import Testing
import Base
import Foundation
import Nutrition
import SQLiteKit
@testable import Journal

@Suite struct ExpenditureStoreTests {
    @Test func dayMarksAreStoredUndoneAndRefusedForTheFuture() throws {
        let (store, _) = try makeStore()
        let d = day("2024-04-30")
        try store.setDayMark(.incomplete, on: d)
        #expect(try store.dayMark(d) == .incomplete)
        try store.setDayMark(.complete, on: d)
        var plan = try store.undoPlan(last: 1)
        #expect(plan.lines(in: testZone).joined(separator: "\n").contains("marked 2024-04-30 complete"))
        try store.undo(last: 1, expected: plan.steps.map(\.id))
        #expect(try store.dayMark(d) == .incomplete)
        try store.setDayMark(nil, on: d)
        #expect(try store.dayMark(d) == nil)
        plan = try store.undoPlan(last: 1)
        #expect(plan.lines(in: testZone).joined(separator: "\n").contains("removed the mark of 2024-04-30"))
        #expect(journalError { try store.setDayMark(.complete, on: day("2024-05-02")) } != nil)
        try store.queue.write { db in
            try db.execute("INSERT INTO journal_settings (key, value) VALUES ('day_mark:2024-04-01', 'maybe')")
            #expect(try store.problemWithStoredSetting(key: "day_mark:2024-04-01", in: db) == "a day mark is not complete or incomplete")
        }
    }

    @Test func intakeDaysLeaveOutUnloggedAndIncompleteDays() throws {
        let (store, _) = try makeStore()
        try store.logEntry(EntryDraft(day: day("2024-04-28"), meal: .lunch, name: "Soup", nutrients: nutrients(["energy_kcal": 400])))
        try store.logEntry(EntryDraft(day: day("2024-04-28"), meal: .dinner, name: "Pasta", nutrients: nutrients(["energy_kcal": 800])))
        try store.logEntry(EntryDraft(day: day("2024-04-29"), meal: .lunch, name: "Snack", nutrients: nutrients(["energy_kcal": 300])))
        try store.logEntry(EntryDraft(day: day("2024-04-30"), meal: .lunch, name: "Water", nutrients: nutrients(["water_g": 500])))
        try store.setDayMark(.incomplete, on: day("2024-04-29"))
        try store.setDayMark(.complete, on: day("2024-04-27"))
        let intake = try store.queue.read { try store.intakeDays(from: day("2024-04-20"), to: day("2024-05-01"), in: $0) }
        #expect(intake[day("2024-04-28")] == .counted(kcal: 1_200))
        #expect(intake[day("2024-04-29")] == .markedIncomplete)
        #expect(intake[day("2024-04-30")] == .noEnergy)
        // Marked complete with nothing logged: a day of no intake; unmarked and empty: absent.
        #expect(intake[day("2024-04-27")] == .counted(kcal: 0))
        #expect(intake[day("2024-04-26")] == nil)
    }

    @Test func theEstimateReadsTheJournalsIntakeAndWeighIns() throws {
        let (store, _) = try makeStore()
        // 30 days eating 2,000 kcal and losing 0.05 kg a day: 2,000 + 385 = 2,385 kcal.
        for i in 0..<30 {
            let d = try day("2024-04-01").adding(days: i)
            if i % 5 != 4 {
                try store.logEntry(EntryDraft(day: d, meal: .lunch, name: "Meal", nutrients: nutrients(["energy_kcal": 2_000])))
            }
            try store.logWeight(kg: 80 - 0.05 * Double(i), day: d, source: "test")
        }
        let e = try store.expenditure(on: day("2024-04-30"))
        #expect(e.intakeDays == 24 && e.unloggedDays == 6 && e.weighIns == 30 && e.windowDays == 30)
        #expect(abs((e.expenditureKcal ?? 0) - 2_385) < 1)
        #expect(try store.queue.read { try store.backup(in: $0) }.dayMarks == nil)
        try store.setDayMark(.incomplete, on: day("2024-04-02"))
        let (other, _) = try makeStore()
        _ = try other.importBackup(try store.exportBackup())
        #expect(try other.dayMark(day("2024-04-02")) == .incomplete)
        #expect(try other.expenditure(on: day("2024-04-30")).incompleteDays == 1)
    }

    @Test func todayIsLeftOutWhileItIsBeingLoggedUnlessMarkedComplete() throws {
        let (store, _) = try makeStore()
        for i in 0..<31 {
            let d = try day("2024-04-01").adding(days: i)
            // Today (2024-05-01) has only breakfast so far.
            try store.logEntry(EntryDraft(day: d, meal: .lunch, name: "Meal", nutrients: nutrients(["energy_kcal": i == 30 ? 300 : 2_000])))
            try store.logWeight(kg: 80 - 0.05 * Double(i), day: d, source: "test")
        }
        let e = try store.expenditure()
        #expect(e.inProgressDays == 1 && e.intakeDays == 30)
        #expect(abs((e.expenditureKcal ?? 0) - 2_385) < 1)
        try store.setDayMark(.complete, on: store.today())
        let marked = try store.expenditure()
        #expect(marked.inProgressDays == 0 && marked.intakeDays == 31)
    }

    @Test func aWeeklyCheckInIsDueWithAGoalAndAnEstimateOncePerWeek() throws {
        let (store, clock) = try makeStore()
        for i in 0..<30 {
            let d = try day("2024-04-01").adding(days: i)
            try store.logEntry(EntryDraft(day: d, meal: .lunch, name: "Meal", nutrients: nutrients(["energy_kcal": 2_000])))
            try store.logWeight(kg: 80 - 0.05 * Double(i), day: d, source: "test")
        }
        #expect(try store.queue.read { try store.checkInDue(in: $0) } == nil)
        try store.setProfile(Profile(goal: .lose, rateKgPerWeek: 0.5))
        #expect(try store.queue.read { try store.checkInDue(in: $0) } != nil)
        try store.setLastCheckIn(store.today())
        clock.advance(days: 6)
        #expect(try store.queue.read { try store.checkInDue(in: $0) } == nil)
        clock.advance(days: 1)
        #expect(try store.queue.read { try store.checkInDue(in: $0) } != nil)
    }
}
