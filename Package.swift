// swift-tools-version:6.0
// ofj: OpenFoodJournal for the terminal. Module graph: see ARCHITECTURE.md (dependencies point down).
import PackageDescription

/// The folder of this manifest, for the release link's ordering file (an absolute path for lld).
let packageRoot = String(#filePath.dropLast("/Package.swift".count))

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

        // Pure values and algorithms, no dependencies: no I/O, no SQLite, no product text (JSON values and
        // documents, calendar days and UTC timestamps, edit distance, small text helpers).
        .target(name: "Base", swiftSettings: swiftSettings),
        // What reaches the terminal and the disk, or leaves the machine: the one text sanitiser, URL
        // credential redaction, the secret and content redactor (Redactor), 0600 files.
        .target(name: "OutputSafety", swiftSettings: swiftSettings),
        .target(name: "SQLiteKit", dependencies: ["CSQLite"], swiftSettings: swiftSettings),
        // Where ofj's files are (XDG rules, OFJ_HOME) and config.json read and written whole; each section's
        // meaning stays with the module that owns it (approvals: Agent, providers: Providers, sync: Sync, meals: ofj).
        .target(name: "Settings", dependencies: ["Base", "OutputSafety"], swiftSettings: swiftSettings),
        // The nutrition domain; Resources/dri.tsv is the DRI table (Resources/PROVENANCE.md).
        .target(name: "Nutrition", dependencies: ["Base"], resources: [.copy("Resources")], swiftSettings: swiftSettings),
        .target(name: "ReferenceFoods", dependencies: ["Base"], resources: [.copy("Resources")], swiftSettings: swiftSettings),
        .target(name: "Journal", dependencies: ["Base", "SQLiteKit", "Nutrition", "ReferenceFoods", "OutputSafety"], swiftSettings: swiftSettings),
        .target(name: "Agent", dependencies: ["Base", "SQLiteKit", "Settings"], swiftSettings: swiftSettings),
        .target(name: "HTTP", dependencies: ["CCurl"], swiftSettings: swiftSettings),
        // The Turso (libSQL) Hrana-over-HTTP client: values, pipelines (v3, v2 fallback), cursor,
        // configuration, errors. Diagnostics and Sync each name their own database in its errors.
        .target(name: "Hrana", dependencies: ["Base", "HTTP", "OutputSafety"], swiftSettings: swiftSettings),
        // Wire adapters (Gemini, Chat Completions, Responses, Anthropic), the model catalog, provider resolution.
        .target(name: "Providers", dependencies: ["Base", "Agent", "HTTP", "Settings"], swiftSettings: swiftSettings),
        // Packaged and branded foods: barcodes, Open Food Facts and FoodData Central, their cache.
        .target(name: "PackagedFoods", dependencies: ["Base", "HTTP", "SQLiteKit", "Nutrition"], swiftSettings: swiftSettings),
        .target(name: "Diagnostics", dependencies: ["Base", "SQLiteKit", "Agent", "HTTP", "Hrana", "OutputSafety"], swiftSettings: swiftSettings),
        // One journal on several machines through a Turso (libSQL) database: change capture, push, pull.
        .target(name: "Sync", dependencies: ["Base", "SQLiteKit", "Agent", "Journal", "HTTP", "Hrana", "OutputSafety"], swiftSettings: swiftSettings),
        // Web research: fetch_url (and its address policy), web search and durable sources.
        .target(name: "Research", dependencies: ["Base", "Agent", "HTTP", "SQLiteKit", "Providers"], swiftSettings: swiftSettings),
        .target(name: "NutritionTools", dependencies: ["Base", "Agent", "Journal", "Nutrition", "ReferenceFoods", "PackagedFoods", "SQLiteKit"], swiftSettings: swiftSettings),
        // The offline assistant: a deterministic ChatModel over the nutrition tools' published names (no network).
        .target(name: "Offline", dependencies: ["Base", "Agent", "NutritionTools"], swiftSettings: swiftSettings),
        // ofj as an MCP server: JSON-RPC over stdio, the same tools, approvals through elicitation, the same ledger.
        .target(name: "MCP", dependencies: ["Base", "Agent", "SQLiteKit"], swiftSettings: swiftSettings),
        // The declarative command line: specs, the parser, help, shell completion, README.md's command table.
        // Product-free: ofj's own commands are declared in the executable.
        .target(name: "CommandLineKit", dependencies: ["Base", "OutputSafety"], swiftSettings: swiftSettings),
        // Everything that formats journal data for people (day/week/month views, charts, gaps, the HTML report,
        // search results, thread export), for the CLI and the REPL alike; with the terminal basics they need.
        .target(name: "Views", dependencies: ["Base", "Journal", "Nutrition", "ReferenceFoods", "Agent", "SQLiteKit", "OutputSafety"],
                swiftSettings: swiftSettings),
        .target(name: "REPL", dependencies: ["Base", "CEditLine", "CommandLineKit", "Views", "Agent", "Journal", "Nutrition", "Providers",
                                             "SQLiteKit", "OutputSafety"],
                swiftSettings: swiftSettings),
        .target(name: "Transcripts", dependencies: ["Base", "REPL", "CommandLineKit", "Views", "Agent", "Journal", "Diagnostics", "SQLiteKit", "OutputSafety",
                                                    "PackagedFoods", "HTTP"],
                swiftSettings: swiftSettings),
        .executableTarget(name: "ofj", dependencies: ["Base", "CommandLineKit", "Views", "REPL", "Transcripts", "Agent", "Journal", "Nutrition", "ReferenceFoods",
                                                       "Providers", "Diagnostics", "NutritionTools", "OutputSafety", "MCP", "PackagedFoods", "HTTP",
                                                       "Hrana", "Offline", "Research", "Sync", "SQLiteKit", "Settings"],
                          swiftSettings: swiftSettings,
                          // Release builds link with the toolchain's lld and packed relative relocations
                          // (DT_RELR, glibc >= 2.36): the 2 MB of relocation entries the loader read at
                          // every start become a few kB, 3 MB less peak memory for `ofj --version`
                          // (BENCHMARKS.md, issue 39). gold, the default linker here, cannot pack them.
                          // tools/startup.order (tools/startup-order.sh) puts the functions of the common
                          // start-up paths together: the kernel maps the binary's code in 64 KB blocks
                          // around each page used, so scattered code cost `ofj day` 6 MiB more.
                          linkerSettings: [.unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs",
                                                         "-Xlinker", "--symbol-ordering-file=\(packageRoot)/tools/startup.order",
                                                         "-Xlinker", "--no-warn-symbol-ordering"],
                                                        .when(platforms: [.linux], configuration: .release))]),
        .target(name: "TestSupport", dependencies: ["Base", "SQLiteKit", "HTTP", "Hrana", "CEditLine"], path: "Sources/TestSupport",
                swiftSettings: swiftSettings),

        .testTarget(name: "BaseTests", dependencies: ["Base", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "OutputSafetyTests", dependencies: ["OutputSafety"], swiftSettings: swiftSettings),
        .testTarget(name: "SettingsTests", dependencies: ["Settings", "Base", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "SQLiteKitTests", dependencies: ["SQLiteKit", "CSQLite", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "NutritionTests", dependencies: ["Base", "Nutrition"], swiftSettings: swiftSettings),
        .testTarget(name: "ReferenceFoodsTests", dependencies: ["ReferenceFoods"], swiftSettings: swiftSettings),
        .testTarget(name: "JournalTests", dependencies: ["Base", "Journal", "Nutrition", "ReferenceFoods", "SQLiteKit", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "AgentTests", dependencies: ["Base", "Agent", "SQLiteKit", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "PackagedFoodsTests", dependencies: ["PackagedFoods", "TestSupport", "HTTP", "SQLiteKit", "Nutrition"],
                    resources: [.copy("Fixtures")], swiftSettings: swiftSettings),
        .testTarget(name: "HranaTests", dependencies: ["Hrana", "Base", "HTTP", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "ProvidersTests", dependencies: ["Base", "Agent", "HTTP", "SQLiteKit", "Providers", "Offline", "Research", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "DiagnosticsTests", dependencies: ["Diagnostics", "Agent", "HTTP", "Hrana", "OutputSafety", "SQLiteKit", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "NutritionToolsTests", dependencies: ["Base", "Agent", "HTTP", "Journal", "Nutrition", "ReferenceFoods", "SQLiteKit", "NutritionTools",
                                                            "Offline", "Providers", "TestSupport", "PackagedFoods"],
                    // Real token counts of the tool specs (tools/prompt_size.py), read by path.
                    exclude: ["ToolTokenCounts.json"], swiftSettings: swiftSettings),
        .testTarget(name: "OfflineTests", dependencies: ["Offline", "Agent", "NutritionTools"], swiftSettings: swiftSettings),
        .testTarget(name: "CommandLineKitTests", dependencies: ["CommandLineKit"], swiftSettings: swiftSettings),
        .testTarget(name: "ViewsTests", dependencies: ["Base", "Views", "Journal", "Nutrition", "ReferenceFoods", "SQLiteKit", "TestSupport"], swiftSettings: swiftSettings),
        // The REPL session: its parts in process, and the interactive ofj driven on a pseudo-terminal.
        .testTarget(name: "REPLTests", dependencies: ["Base", "REPL", "Views", "Agent", "Journal", "Nutrition", "SQLiteKit", "TestSupport"], swiftSettings: swiftSettings),
        // The ofj command line as whole processes: commands, exit statuses, help, completion, files it writes.
        .testTarget(name: "CLITests", dependencies: ["Base", "Agent", "Journal", "Nutrition", "SQLiteKit", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "MCPTests", dependencies: ["Base", "Agent", "ReferenceFoods", "SQLiteKit", "MCP", "NutritionTools", "Journal", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "ResearchTests", dependencies: ["Base", "Agent", "SQLiteKit", "Research", "HTTP", "Diagnostics", "TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "SyncTests", dependencies: ["Base", "Sync", "Journal", "Nutrition", "Agent", "Research", "Hrana", "HTTP", "SQLiteKit", "TestSupport", "Views"], swiftSettings: swiftSettings),
        // The repository's own map against the tree: Package.swift's edges and the imports, docs' file tables,
        // tools/README.md, ARCHITECTURE.md's module tree.
        .testTarget(name: "RepositoryTests", dependencies: ["TestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "TranscriptsTests", dependencies: ["Transcripts", "SQLiteKit", "TestSupport"], swiftSettings: swiftSettings),
    ]
)
