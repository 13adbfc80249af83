// The nutrition toolbox: every tool the assistant may call, and the system prompt for real models.
import Agent
import Base
import Foundation
import Journal
import Nutrition
import ReferenceFoods

public enum NutritionToolbox {
    /// Read tools, in the order the model sees them.
    public static let readToolNames = NutritionToolName.journalReads.map(\.rawValue)
    /// Write tools (each needs the person's approval).
    public static let writeToolNames = NutritionToolName.journalWrites.map(\.rawValue)

    /// Every nutrition tool over `journal` (whose clock and time zone decide "today" and the
    /// default meal) and `reference`. Writes run inside the ledger transaction the agent passes.
    /// - Parameters:
    ///   - extraTools: more tools to offer (e.g. web search), registered after these.
    ///   - resultLimit: largest tool result in bytes; longer ones are truncated with a note.
    public static func makeRegistry(journal: JournalStore, reference: ReferenceDatabase, extraTools: [any Tool] = [],
                                    resultLimit: Int = ToolRegistry.defaultResultLimit) -> ToolRegistry {
        var tools = makeTools(journal: journal, reference: reference)
        tools.append(contentsOf: extraTools)
        return ToolRegistry(tools, resultLimit: resultLimit)
    }

    /// The nutrition tools alone, in registry order.
    public static func makeTools(journal: JournalStore, reference: ReferenceDatabase) -> [any Tool] {
        [
            GetNutritionContext(journal: journal), GetJournalDay(journal: journal), GetJournalRange(journal: journal),
            SearchJournal(journal: journal), GetNutrientBreakdown(journal: journal), SearchFoodBank(journal: journal),
            GetSavedFood(journal: journal), ListBrands(journal: journal), GetGoals(journal: journal),
            SearchReferenceFoods(reference: reference, journal: journal), RecommendShelfFoods(journal: journal),
            GetNutrientGaps(journal: journal, reference: reference), GetEatingTimes(journal: journal),
            LogFood(journal: journal), LogSavedFood(journal: journal), LogReferenceFood(journal: journal, reference: reference),
            LogCalculatorBuild(journal: journal), UpdateJournalEntry(journal: journal), MoveJournalEntry(journal: journal),
            CopyJournalMeal(journal: journal), DeleteJournalEntry(journal: journal), AddDayNote(journal: journal),
            SaveFood(journal: journal, reference: reference), SetFoodArchived(journal: journal),
            SetFoodOnShelf(journal: journal), RenameBrand(journal: journal), SetGoals(journal: journal),
        ]
    }

    /// The system prompt for real models. The same bytes for every request of every thread (the
    /// start of the stable prefix providers cache); what changes per request is `contextNote`.
    public static let systemPrompt = """
            You are the assistant inside ofj (OpenFoodJournal for the terminal): a personal nutrition journal and Food Bank kept in a local database. \
            You help one person log what they eat, review their days and trends, manage their saved foods and goals, and decide what to eat.

            Rules:
            - Use the tools for every number. Never guess or invent nutrient values, totals or ids; if a tool has no answer, say so.
            - Before logging, always look the food up: search_food_bank first (the person's own foods, "my usual ..."), then search_reference_foods (USDA). \
            Log with log_saved_food or log_reference_food using the ids they return; use log_food only for foods found in neither, with nutrients the person gave you.
            - Dates: YYYY-MM-DD, "today" or "yesterday" (the person's time zone). When the person names no meal, leave meal out: \
            the journal picks it by the local time (breakfast 02:00-12:00, lunch 12:00-18:00, dinner 18:00-02:00); snack only when they say so.
            - Nutrient ids carry their unit: energy_kcal, protein_g, sodium_mg, vitamin_d_mcg. A missing nutrient is "not reported", never zero.
            - Every change (logging, editing, moving, deleting, saving foods, goals) is shown to the person for approval. \
            If they decline, do not repeat it unless they ask. Find ids with a read tool before changing anything.
            - If a tool returns an error, fix the argument it names or ask the person; do not retry the same call.
            - More tools (weeks and trends, Food Bank management, goals, packaged foods, the web) come in groups: \
            call enable_tools with the group, then use its tools.
            - Keep answers short: a sentence or a compact list, with units. No tables unless asked.
            - "\(contextLabel) Notes: …" and "\(contextLabel) Now: …" ending a message are ofj's: the person's standing notes (follow them) and the local date and time.
            """

    /// How the context note starts (the system prompt names it).
    public static let contextLabel = "[ofj]"

    /// The volatile tail of each request: the local date and time at `now` in `timeZone` (for
    /// "today" and the default meal). Sent after the stable prefix, so a new minute or day does
    /// not change the bytes providers cache.
    /// - Parameter notes: the person's standing notes (`ofj profile notes`), sent before the time
    ///   line: they change rarely, the time every minute, so the time goes last.
    public static func contextNote(now: Date, timeZone: TimeZone, notes: String? = nil) -> String {
        let local = now.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: now))
        let dayNumber = Int((local / 86_400).rounded(.down))
        let minutes = Int((local - Double(dayNumber) * 86_400) / 60)
        let today = (try? CalendarDay(dayNumber: dayNumber)).map { Text.day($0) } ?? "unknown"
        let time = String(format: "%02d:%02d", minutes / 60, minutes % 60)
        let line = "\(contextLabel) Now: \(today), \(time) local time (\(timeZone.identifier))."
        guard let notes = notes?.trimmingCharacters(in: .whitespacesAndNewlines), !notes.isEmpty else { return line }
        return "\(contextLabel) Notes: the person's standing notes, for every answer:\n\(notes)\n" + line
    }
}
