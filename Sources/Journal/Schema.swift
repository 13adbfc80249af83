// The journal's tables and migrations (identifiers prefixed "journal-"), sharing one file with other modules.
import SQLiteKit

extension JournalStore {
    /// The newest backup schema this build writes and reads.
    public static let backupSchemaVersion = 1

    /// Adds the journal's migrations to a migrator shared by every module that owns tables in
    /// the same database file. Run the migrator once with all modules registered.
    public static func registerMigrations(into migrator: inout Migrator) {
        migrator.register("journal-1-tables", sql: """
            CREATE TABLE journal_entries (
                seq INTEGER PRIMARY KEY,
                id TEXT NOT NULL UNIQUE,
                day TEXT NOT NULL,
                meal TEXT NOT NULL CHECK (meal IN ('breakfast', 'lunch', 'dinner', 'snack')),
                name TEXT NOT NULL,
                brand TEXT,
                serving_quantity REAL NOT NULL,
                serving_unit TEXT NOT NULL,
                serving_grams REAL,
                serving_ml REAL,
                servings REAL NOT NULL,
                saved_food_id TEXT,
                source TEXT NOT NULL,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL
            );
            CREATE INDEX journal_entries_day ON journal_entries (day, meal);
            CREATE INDEX journal_entries_created ON journal_entries (created_at);
            -- One row per reported nutrient of an entry (a missing row is "not reported"):
            -- `amount` per serving, `total` = amount * servings. Keyed by day first so per-day
            -- totals over a range are one ordered scan with no join and no sort.
            CREATE TABLE journal_entry_nutrients (
                day TEXT NOT NULL,
                nutrient TEXT NOT NULL,
                entry_seq INTEGER NOT NULL REFERENCES journal_entries (seq) ON DELETE CASCADE,
                amount REAL NOT NULL,
                total REAL NOT NULL,
                PRIMARY KEY (day, nutrient, entry_seq)
            ) WITHOUT ROWID;
            CREATE INDEX journal_entry_nutrients_entry ON journal_entry_nutrients (entry_seq);
            -- Per-day sums of journal_entry_nutrients, rebuilt for a day whenever its entries
            -- change, so a year of per-day totals reads a few thousand rows instead of ~50,000.
            CREATE TABLE journal_day_totals (
                day TEXT NOT NULL,
                nutrient TEXT NOT NULL,
                total REAL NOT NULL,
                reported INTEGER NOT NULL,
                PRIMARY KEY (day, nutrient)
            ) WITHOUT ROWID;
            CREATE TABLE journal_saved_foods (
                id TEXT PRIMARY KEY NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('single', 'composite', 'calculator')),
                name TEXT NOT NULL,
                name_key TEXT NOT NULL,
                brand TEXT,
                brand_key TEXT NOT NULL,
                serving_quantity REAL NOT NULL,
                serving_unit TEXT NOT NULL,
                serving_grams REAL,
                serving_ml REAL,
                -- Per-serving amounts as "id=value;…" (fast to read; see NutrientText).
                nutrients TEXT NOT NULL,
                -- JSON for mappings, ingredients and calculator portions; NULL for a plain food.
                body TEXT,
                is_on_shelf INTEGER NOT NULL DEFAULT 0,
                is_archived INTEGER NOT NULL DEFAULT 0,
                last_used_at INTEGER,
                created_at INTEGER NOT NULL,
                updated_at INTEGER NOT NULL
            );
            CREATE INDEX journal_saved_foods_name ON journal_saved_foods (name_key);
            CREATE INDEX journal_saved_foods_brand ON journal_saved_foods (brand_key, name_key);
            CREATE INDEX journal_saved_foods_used ON journal_saved_foods (last_used_at);
            CREATE TABLE journal_settings (
                key TEXT PRIMARY KEY NOT NULL,
                value TEXT NOT NULL
            );
            """)
        registerBarcodeMigration(into: &migrator)
        // Comma list of canonical nutrient ids derived by USDA's rules (vitamin D from IU,
        // folate DFE) rather than reported; NULL when none.
        migrator.register("journal-entry-derived-nutrients", sql: "ALTER TABLE journal_entries ADD COLUMN derived_nutrients TEXT")
        registerFullTextMigration(into: &migrator)
        registerUndoMigration(into: &migrator)
        // Issue 23 §4: the stable hash of every row imported from another app (Cronometer,
        // MyFitnessPal, CSV), so importing a file twice adds nothing.
        migrator.register("cliops-1-import-rows", sql: """
            CREATE TABLE journal_import_rows (
                hash INTEGER PRIMARY KEY NOT NULL,
                source TEXT NOT NULL,
                entry_id TEXT NOT NULL,
                imported_at INTEGER NOT NULL
            );
            """)
        registerPersonMigration(into: &migrator)
        // Issue 34 §8: when an entry was eaten (`--at 08:15`, an import's time column), in
        // milliseconds since 1970; NULL means when it was logged (created_at).
        migrator.register("journal-3-diary-eaten-at", sql: "ALTER TABLE journal_entries ADD COLUMN eaten_at INTEGER")
        // A meal of the person's own ("Pre-workout"); `meal` holds snack for it. NULL for the four.
        migrator.register("journal-3-diary-meal-label", sql: "ALTER TABLE journal_entries ADD COLUMN meal_label TEXT")
    }

    /// Applies only the journal's migrations. For a database that holds only the journal
    /// (tests, tools); an app sharing the file with other modules uses one combined Migrator.
    public static func migrate(_ db: Database) throws {
        var migrator = Migrator()
        registerMigrations(into: &migrator)
        try migrator.migrate(db)
    }
}
