// Tests for JSON backup export/import (round trip, double import, version and shape checks) and CSV export.
import Testing
import Foundation
import Nutrition
import SQLiteKit
@testable import Journal

@Suite struct BackupTests {
    func populated() throws -> (JournalStore, ManualClock) {
        let (store, clock) = try makeStore()
        let milk = try store.createFood(FoodDraft(name: "Milk", brand: "Horizon", serving: ServingSize(quantity: 1, unit: .volume(.cup), grams: 244),
                                                  mappings: [UnitMapping(quantity: 1, unit: .count("glass"), milliliters: 300)],
                                                  nutrients: nutrients(["energy_kcal": 122, "omega_3_mg": 5]), isOnShelf: true))
        try store.createFood(FoodDraft(kind: .composite, name: "Latte", ingredients: [try store.ingredient(from: milk.id, quantity: 2, unit: .volume(.cup))]))
        try store.createFood(FoodDraft(kind: .calculator, name: "Bowl", calculatorIngredients: [
            CalculatorIngredient(name: "Rice", portions: [CalculatorPortion(name: "light", nutrients: nutrients(["energy_kcal": 105]))])]))
        clock.advance(seconds: 1.25)
        try store.logFood(milk.id, amount: .quantity(1, .count("glass")))
        try store.logEntry(EntryDraft(day: day("2024-04-30"), meal: .snack, name: "Chips, \"salted\"", brand: "Lay's",
                                      nutrients: nutrients(["energy_kcal": 160, "sodium_mg": 170])))
        try store.setGoal("protein_g", to: 120)
        return (store, clock)
    }

    /// Everything but the export time.
    func comparable(_ data: Data) throws -> JournalBackup {
        var b = try JournalJSON.decoder.decode(JournalBackup.self, from: data)
        b.exportedAt = Date(timeIntervalSince1970: 0)
        return b
    }

    @Test func roundTripIntoAnEmptyJournal() throws {
        let (store, _) = try populated()
        let data = try store.exportBackup()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"schema_version\" : 1"))
        let (fresh, _) = try makeStore(ManualClock("2025-01-01T00:00:00Z"))
        let report = try fresh.importBackup(data)
        #expect(report.entriesInserted == 2 && report.foodsInserted == 3 && report.goalsChanged)
        #expect(try comparable(fresh.exportBackup()).entries == comparable(data).entries)
        #expect(try comparable(fresh.exportBackup()).foods == comparable(data).foods)
        #expect(try fresh.goals()["protein_g"] == 120)
        #expect(try fresh.food(try #require(comparable(data).foods.first { $0.name == "Milk" }?.id))?.nutrients["omega_3_mg"] == 5)
    }

    @Test func importingTwiceChangesNothing() throws {
        let (store, _) = try populated()
        let data = try store.exportBackup()
        let before = try comparable(try store.exportBackup())
        let first = try store.importBackup(data)
        #expect(first.changedNothing)
        #expect(first.entriesUnchanged == 2 && first.foodsUnchanged == 3)
        let (other, _) = try makeStore()
        try other.importBackup(data)
        let snapshot = try comparable(other.exportBackup())
        let second = try other.importBackup(data)
        #expect(second.changedNothing)
        #expect(try comparable(other.exportBackup()).entries == snapshot.entries)
        #expect(try count(other, "journal_entries") == 2)
        #expect(try comparable(store.exportBackup()).entries == before.entries)
    }

    @Test func newerRowsWinOverOlderOnes() throws {
        let (store, clock) = try populated()
        let old = try store.exportBackup()
        let e = try #require(try store.entries().first)
        clock.advance(seconds: 60)
        try store.updateEntry(e.id, EntryUpdate(name: "Edited later"))
        let r = try store.importBackup(old) // the backup is older: local edit stays
        #expect(r.entriesUpdated == 0)
        #expect(try store.entry(e.id)?.name == "Edited later")
        let newer = try store.exportBackup()
        let (other, _) = try makeStore()
        try other.importBackup(old)
        #expect(try other.importBackup(newer).entriesUpdated == 1)
        #expect(try other.entry(e.id)?.name == "Edited later")
    }

    @Test func rejectsNewerSchemaAndMalformedFilesWritingNothing() throws {
        let (store, _) = try makeStore()
        let newer = Data(#"{"schema_version": 99, "entries": [], "foods": []}"#.utf8)
        #expect(journalError { try store.importBackup(newer) } == .newerBackup(version: 99, supported: 1))
        #expect(journalError { try store.importBackup(Data("not json".utf8)) } != nil)
        #expect(journalError { try store.importBackup(Data(#"{"entries": []}"#.utf8)) }?.description.contains("schema_version") == true)
        #expect(journalError { try store.importBackup(Data([0xFF, 0xFE, 0x00])) } != nil)
        // One bad entry among good ones: nothing is written.
        let (src, _) = try populated()
        var text = String(decoding: try src.exportBackup(), as: UTF8.self)
        text = text.replacingOccurrences(of: "\"servings\" : 1", with: "\"servings\" : -1")
        let err = journalError { try store.importBackup(Data(text.utf8)) }
        #expect(err?.description.contains("servings") == true)
        let badDay = String(decoding: try src.exportBackup(), as: UTF8.self).replacingOccurrences(of: "2024-04-30", with: "2024-04-31")
        #expect(journalError { try store.importBackup(Data(badDay.utf8)) } != nil)
        #expect(try count(store, "journal_entries") == 0)
        #expect(try count(store, "journal_saved_foods") == 0)
        #expect(try store.goals() == .fdaDefaults)
    }

    @Test func csvQuotesPerRFC4180AndLeavesNotReportedEmpty() throws {
        let (store, _) = try populated()
        let csv = try store.exportCSV()
        let lines = csv.components(separatedBy: "\r\n")
        #expect(lines.count == 4 && lines[3].isEmpty) // header, 2 rows, trailing CRLF
        let header = lines[0].split(separator: ",").map(String.init)
        #expect(header.prefix(4) == ["id", "day", "meal", "name"])
        #expect(header.contains("energy_kcal") && header.contains("sodium_mg") && header.contains("omega_3_mg"))
        #expect(header.firstIndex(of: "energy_kcal")! < header.firstIndex(of: "omega_3_mg")!)
        #expect(lines[1].contains(",\"Chips, \"\"salted\"\"\",Lay's,"))
        // The milk glass row did not report sodium: an empty cell, not 0.
        let milkRow = lines[2].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        #expect(milkRow[header.firstIndex(of: "sodium_mg")!] == "")
        #expect(milkRow[header.firstIndex(of: "energy_kcal")!] == "154.699154") // 122 kcal × 300 mL ÷ 236.588 mL
        #expect(CSV.field("line\nbreak") == "\"line\nbreak\"")
        // A bare CR would overwrite the line when the export is shown in a terminal: dropped, like
        // escape sequences and bidi overrides (a name may come from a model).
        #expect(CSV.field("cr\rhere") == "crhere")
        #expect(CSV.field("Oat\u{1B}]52;c;ZXZpbA==\u{07}meal\u{1B}[2J") == "Oatmeal")
        #expect(CSV.field("evil\u{202E}txt") == "eviltxt")
        // Cells starting with a tab or CR are neutralised like formulas.
        #expect(CSV.field("\t=1+1") == "'\t=1+1")
        #expect(CSV.field("\r=1+1") == "'=1+1") // the CR is dropped, then the = is neutralised
        #expect(CSV.field("-3") == "'-3" && CSV.field("@SUM(A1)") == "'@SUM(A1)" && CSV.field("+1") == "'+1")
        #expect(CSV.field("plain") == "plain")
        #expect(CSV.number(2) == "2" && CSV.number(0.1) == "0.1" && CSV.number(1e-9) == "0")
        let onlyApril30 = try store.exportCSV(from: day("2024-04-30"), to: day("2024-04-30"))
        #expect(onlyApril30.components(separatedBy: "\r\n").count == 3)
    }
}
