// swift-tools-version:6.0
// ofj: OpenFoodJournal for the terminal. Module graph: see ARCHITECTURE.md (dependencies point down).
import PackageDescription

let swiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "ofj",
    platforms: [.macOS(.v15)],
    products: [.executable(name: "ofj", targets: ["ofj"])],
    targets: [
        // C libraries from Debian, with static-inline shims for what Swift cannot call directly.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // No pkgConfig: its `--libs` would link libcurl into every command; shim.h loads it on demand.
        .systemLibrary(name: "CCurl", path: "Sources/CCurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CEditLine", path: "Sources/CEditLine", pkgConfig: "libedit", providers: [.apt(["libedit-dev"])]),

        // What reaches the terminal and the disk: the one text sanitiser, URL credential redaction, 0600 files.
        .target(name: "OutputSafety", swiftSettings: swiftSettings),
        .target(name: "SQLiteKit", dependencies: ["CSQLite"], swiftSettings: swiftSettings),
        .target(name: "Nutrition", swiftSettings: swiftSettings),
        .target(name: "ReferenceFoods", resources: [.copy("Resources")], swiftSettings: swiftSettings),
        .target(name: "Journal", dependencies: ["SQLiteKit", "Nutrition", "ReferenceFoods", "OutputSafety"], swiftSettings: swiftSettings),
        .target(name: "Agent", dependencies: ["SQLiteKit"], swiftSettings: swiftSettings),
        .target(name: "HTTP", dependencies: ["CCurl"], swiftSettings: swiftSettings),
        .target(name: "Providers", dependencies: ["Agent", "HTTP"], swiftSettings: swiftSettings),
        // Packaged and branded foods: barcodes, Open Food Facts and FoodData Central, their cache.
        .target(name: "PackagedFoods", dependencies: ["HTTP", "SQLiteKit", "Nutrition"], swiftSettings: swiftSettings),
        .target(name: "Diagnostics", dependencies: ["SQLiteKit", "Agent", "HTTP", "OutputSafety"], swiftSettings: swiftSettings),
        // One journal on several machines through a Turso (libSQL) database: change capture, push, pull.
        .target(name: "Sync", dependencies: ["SQLiteKit", "Agent", "Journal", "HTTP", "Diagnostics", "OutputSafety"], swiftSettings: swiftSettings),
        // Web research: fetch_url (and its address policy), web search and durable sources.
        .target(name: "Research", dependencies: ["Agent", "HTTP", "SQLiteKit", "Providers"], swiftSettings: swiftSettings),
        .target(name: "NutritionTools", dependencies: ["Agent", "Journal", "Nutrition", "PackagedFoods"], swiftSettings: swiftSettings),
        // ofj as an MCP server: JSON-RPC over stdio, the same tools, approvals through elicitation, the same ledger.
        .target(name: "MCP", dependencies: ["Agent", "SQLiteKit"], swiftSettings: swiftSettings),
        // The declarative command line: specs, the parser, help, shell completion, README.md's command table.
        // Product-free: ofj's own commands are declared in the executable.
        .target(name: "CommandLineKit", dependencies: ["Agent", "OutputSafety"], swiftSettings: swiftSettings),
        // Everything that formats journal data for people (day/week/month views, charts, gaps, the HTML report,
        // search results, thread export), for the CLI and the REPL alike; with the terminal basics they need.
        .target(name: "Views", dependencies: ["Journal", "Nutrition", "ReferenceFoods", "Agent", "SQLiteKit", "OutputSafety"],
                swiftSettings: swiftSettings),
        .target(name: "REPL", dependencies: ["CEditLine", "CommandLineKit", "Views", "Agent", "Journal", "Nutrition", "Providers", "Diagnostics", "SQLiteKit",
                                             "OutputSafety"],
                swiftSettings: swiftSettings),
        .target(name: "Transcripts", dependencies: ["REPL", "CommandLineKit", "Views", "Agent", "Journal", "Diagnostics", "SQLiteKit", "OutputSafety",
                                                    "PackagedFoods", "HTTP"],
                swiftSettings: swiftSettings),
        .executableTarget(name: "ofj", dependencies: ["CommandLineKit", "Views", "REPL", "Transcripts", "Agent", "Journal", "Nutrition", "ReferenceFoods",
                                                       "Providers", "Diagnostics", "NutritionTools", "OutputSafety", "MCP", "PackagedFoods", "HTTP",
                                                       "Research", "Sync", "SQLiteKit"],
                          swiftSettings: swiftSettings),
        .target(name: "TestSupport", dependencies: ["SQLiteKit", "Agent", "HTTP", "CEditLine"], path: "Sources/TestSupport",
                swiftSettings: swiftSettings),

        .testTarget(name: "OutputSafetyTests", dependencies: ["OutputSafety"], swiftSettings: swiftSettings),
        .testTarget(name: "SQLiteKitTests", dependencies: ["SQLiteKit", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "NutritionTests", dependencies: ["Nutrition"], swiftSettings: swiftSettings),
        .testTarget(name: "ReferenceFoodsTests", dependencies: ["ReferenceFoods"], swiftSettings: swiftSettings),
        .testTarget(name: "JournalTests", dependencies: ["Journal", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "AgentTests", dependencies: ["Agent", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "PackagedFoodsTests", dependencies: ["PackagedFoods", "TestSupport", "HTTP", "SQLiteKit", "Nutrition"],
                    resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "ProvidersTests", dependencies: ["Providers", "Research", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "DiagnosticsTests", dependencies: ["Diagnostics", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "NutritionToolsTests", dependencies: ["NutritionTools", "Providers", "TestSupport", "PackagedFoods"], swiftSettings: swiftSettings),
        .testTarget(name: "CommandLineKitTests", dependencies: ["CommandLineKit"], swiftSettings: swiftSettings),
        .testTarget(name: "ViewsTests", dependencies: ["Views", "Journal", "Nutrition", "ReferenceFoods", "SQLiteKit", "TestSupport"], swiftSettings: swiftSettings),
        // The REPL session: its parts in process, and the interactive ofj driven on a pseudo-terminal.
        .testTarget(name: "REPLTests", dependencies: ["REPL", "Views", "Agent", "Journal", "SQLiteKit", "TestSupport"], swiftSettings: swiftSettings),
        // The ofj command line as whole processes: commands, exit statuses, help, completion, files it writes.
        .testTarget(name: "CLITests", dependencies: ["Agent", "Journal", "Nutrition", "SQLiteKit", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "MCPTests", dependencies: ["MCP", "NutritionTools", "Journal", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "ResearchTests", dependencies: ["Research", "HTTP", "Diagnostics", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "SyncTests", dependencies: ["Sync", "Journal", "Nutrition", "Agent", "Research", "Diagnostics", "HTTP", "SQLiteKit", "TestSupport", "Views"], swiftSettings: swiftSettings),
        .testTarget(name: "TranscriptsTests", dependencies: ["Transcripts", "TestSupport"], swiftSettings: swiftSettings),
    ]
)
