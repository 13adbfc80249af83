// The nutrition tools' published names, declared once: each tool takes its name from here, and
// every client that calls a tool by name (the offline assistant, prompts, frontends) uses the same
// constant, so a renamed tool cannot leave a caller asking for a tool that no longer exists.

public enum NutritionToolName: String, CaseIterable, Sendable {
    // Journal reads, in the order the model sees them.
    case getNutritionContext = "get_nutrition_context"
    case getJournalDay = "get_journal_day"
    case getJournalRange = "get_journal_range"
    case searchJournal = "search_journal"
    case getNutrientBreakdown = "get_nutrient_breakdown"
    case searchFoodBank = "search_food_bank"
    case getSavedFood = "get_saved_food"
    case listBrands = "list_brands"
    case getGoals = "get_goals"
    case searchReferenceFoods = "search_reference_foods"
    case recommendShelfFoods = "recommend_shelf_foods"
    case getNutrientGaps = "get_nutrient_gaps"
    case getEatingTimes = "get_eating_times"
    // Journal writes (each needs the person's approval).
    case logFood = "log_food"
    case logSavedFood = "log_saved_food"
    case logReferenceFood = "log_reference_food"
    case logCalculatorBuild = "log_calculator_build"
    case updateJournalEntry = "update_journal_entry"
    case moveJournalEntry = "move_journal_entry"
    case copyJournalMeal = "copy_journal_meal"
    case addDayNote = "add_day_note"
    case deleteJournalEntry = "delete_journal_entry"
    case saveFood = "save_food"
    case setFoodArchived = "set_food_archived"
    case setFoodOnShelf = "set_food_on_shelf"
    case renameBrand = "rename_brand"
    case setGoals = "set_goals"
    // Packaged foods (offered as extra tools).
    case lookupBarcode = "lookup_barcode"
    case searchPackagedFoods = "search_packaged_foods"
    case logPackagedFood = "log_packaged_food"
    case savePackagedFood = "save_packaged_food"
    // Body weight (issue 33; PersonTools, registered after the journal's tools).
    case getWeightTrend = "get_weight_trend"
    case logWeight = "log_weight"
    // Offered only to MCP clients, whose models do not get ofj's request with the notes in it.
    case getStandingNotes = "get_standing_notes"

    /// The journal's read tools, in registry order.
    public static let journalReads: [NutritionToolName] = [
        .getNutritionContext, .getJournalDay, .getJournalRange, .searchJournal, .getNutrientBreakdown, .searchFoodBank,
        .getSavedFood, .listBrands, .getGoals, .searchReferenceFoods, .recommendShelfFoods, .getNutrientGaps, .getEatingTimes,
    ]
    /// The journal's write tools, in registry order.
    public static let journalWrites: [NutritionToolName] = [
        .logFood, .logSavedFood, .logReferenceFood, .logCalculatorBuild, .updateJournalEntry, .moveJournalEntry, .copyJournalMeal,
        .deleteJournalEntry, .addDayNote, .saveFood, .setFoodArchived, .setFoodOnShelf, .renameBrand, .setGoals,
    ]
    public static let packagedReads: [NutritionToolName] = [.lookupBarcode, .searchPackagedFoods]
    public static let packagedWrites: [NutritionToolName] = [.logPackagedFood, .savePackagedFood]
    public static let personReads: [NutritionToolName] = [.getWeightTrend]
    public static let personWrites: [NutritionToolName] = [.logWeight]
    public static let mcpReads: [NutritionToolName] = [.getStandingNotes]
}
