// The agent's tables (threads, messages, runs, tool records, ledger, approvals, usage) as migrations.
import SQLiteKit

extension ConversationStore {
    /// The thread `ofj mcp` keeps its sessions' runs under ("MCP clients (ofj mcp)").
    public static let mcpThreadID = "mcp"
    /// Threads ofj keeps for itself: a deletion of one pulled by sync is refused.
    public static let systemThreadIDs: Set<String> = [mcpThreadID]
    /// Where `WriteLedger` keeps its rows (see migration agent-8-durable-ledger).
    static let durableLedgerTable = "agent_durable_ledger"

    /// Phases in which a run is in progress; at most one such run per thread (unique partial index).
    static let activePhaseList = "'queued','preparing','waiting_for_provider','executing_tools','awaiting_approval','finalizing'"

    /// Registers the agent's migrations (identifiers start with "agent-"). Call once, with the
    /// journal's migrations, on the shared database file.
    public static func registerMigrations(into migrator: inout Migrator) {
        migrator.register("agent-1-conversations", sql: """
            CREATE TABLE agent_threads (
                id TEXT PRIMARY KEY NOT NULL,
                title TEXT,
                title_is_custom INTEGER NOT NULL DEFAULT 0,
                provider TEXT,
                model TEXT,
                created_at REAL NOT NULL,
                updated_at REAL NOT NULL
            );
            CREATE INDEX agent_threads_by_update ON agent_threads(updated_at DESC, id);

            CREATE TABLE agent_runs (
                id TEXT PRIMARY KEY NOT NULL,
                thread_id TEXT NOT NULL REFERENCES agent_threads(id) ON DELETE CASCADE,
                phase TEXT NOT NULL CHECK (phase IN ('queued','preparing','waiting_for_provider','executing_tools',
                    'awaiting_approval','finalizing','completed','failed','cancelled','suspended')),
                provider TEXT,
                model TEXT,
                turns_used INTEGER NOT NULL DEFAULT 0,
                error_class TEXT,
                error_line TEXT,
                created_at REAL NOT NULL,
                phase_changed_at REAL NOT NULL,
                finished_at REAL
            );
            CREATE INDEX agent_runs_by_thread ON agent_runs(thread_id, created_at);
            CREATE INDEX agent_runs_by_phase ON agent_runs(phase);
            CREATE UNIQUE INDEX agent_runs_one_active_per_thread ON agent_runs(thread_id)
                WHERE phase IN (\(activePhaseList));

            CREATE TABLE agent_messages (
                id INTEGER PRIMARY KEY,
                thread_id TEXT NOT NULL REFERENCES agent_threads(id) ON DELETE CASCADE,
                seq INTEGER NOT NULL,
                run_id TEXT,
                role TEXT NOT NULL CHECK (role IN ('user','assistant','tool')),
                turn INTEGER,
                state TEXT NOT NULL DEFAULT 'complete' CHECK (state IN ('complete','streaming','partial')),
                created_at REAL NOT NULL,
                UNIQUE (thread_id, seq)
            );
            CREATE INDEX agent_messages_by_run ON agent_messages(run_id, turn);

            CREATE TABLE agent_message_parts (
                message_id INTEGER NOT NULL REFERENCES agent_messages(id) ON DELETE CASCADE,
                ordinal INTEGER NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('text','tool_call','tool_result','continuation')),
                body TEXT NOT NULL,
                call_id TEXT,
                name TEXT,
                is_error INTEGER NOT NULL DEFAULT 0,
                provider TEXT,
                subkind TEXT,
                PRIMARY KEY (message_id, ordinal)
            ) WITHOUT ROWID;

            CREATE TABLE agent_tool_calls (
                run_id TEXT NOT NULL REFERENCES agent_runs(id) ON DELETE CASCADE,
                turn INTEGER NOT NULL,
                call_id TEXT NOT NULL,
                thread_id TEXT NOT NULL,
                ordinal INTEGER NOT NULL,
                tool_name TEXT NOT NULL,
                effect TEXT,
                arguments TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('running','succeeded','failed','rejected','denied','cancelled','interrupted')),
                result TEXT,
                is_error INTEGER NOT NULL DEFAULT 0,
                summary TEXT,
                started_at REAL NOT NULL,
                finished_at REAL,
                PRIMARY KEY (run_id, turn, call_id)
            );
            CREATE INDEX agent_tool_calls_by_thread ON agent_tool_calls(thread_id);

            CREATE TABLE agent_ledger (
                run_id TEXT NOT NULL REFERENCES agent_runs(id) ON DELETE CASCADE,
                turn INTEGER NOT NULL,
                call_id TEXT NOT NULL,
                tool_name TEXT NOT NULL,
                arguments TEXT NOT NULL,
                outcome TEXT NOT NULL CHECK (outcome IN ('committed','denied','failed')),
                decision TEXT,
                result TEXT NOT NULL,
                summary TEXT NOT NULL,
                is_error INTEGER NOT NULL DEFAULT 0,
                recorded_at REAL NOT NULL,
                PRIMARY KEY (run_id, turn, call_id)
            );

            CREATE TABLE agent_approvals (
                id INTEGER PRIMARY KEY,
                run_id TEXT NOT NULL REFERENCES agent_runs(id) ON DELETE CASCADE,
                turn INTEGER NOT NULL,
                call_id TEXT NOT NULL,
                tool_name TEXT NOT NULL,
                decision TEXT NOT NULL,
                source TEXT NOT NULL,
                waited_seconds REAL NOT NULL DEFAULT 0,
                decided_at REAL NOT NULL
            );
            CREATE INDEX agent_approvals_by_run ON agent_approvals(run_id);

            CREATE TABLE agent_tool_grants (
                thread_id TEXT NOT NULL REFERENCES agent_threads(id) ON DELETE CASCADE,
                tool_name TEXT NOT NULL,
                granted_at REAL NOT NULL,
                PRIMARY KEY (thread_id, tool_name)
            ) WITHOUT ROWID;

            CREATE TABLE agent_usage (
                id INTEGER PRIMARY KEY,
                thread_id TEXT NOT NULL REFERENCES agent_threads(id) ON DELETE CASCADE,
                run_id TEXT NOT NULL,
                turn INTEGER NOT NULL,
                provider TEXT NOT NULL,
                model TEXT NOT NULL,
                input_tokens INTEGER NOT NULL,
                cached_input_tokens INTEGER NOT NULL,
                output_tokens INTEGER NOT NULL,
                reasoning_tokens INTEGER NOT NULL,
                cost_usd REAL,
                provider_request_id TEXT,
                created_at REAL NOT NULL
            );
            CREATE INDEX agent_usage_by_thread ON agent_usage(thread_id, created_at);
            CREATE INDEX agent_usage_by_time ON agent_usage(created_at);
            """)

        // Every phase a run went through, with its time, written by triggers so no path
        // (submit, continue, recovery, supersede) can forget it.
        migrator.register("agent-2-run-phase-history", sql: """
            CREATE TABLE agent_run_phases (
                id INTEGER PRIMARY KEY,
                run_id TEXT NOT NULL REFERENCES agent_runs(id) ON DELETE CASCADE,
                phase TEXT NOT NULL,
                at REAL NOT NULL
            );
            CREATE INDEX agent_run_phases_by_run ON agent_run_phases(run_id, id);
            CREATE TRIGGER agent_runs_phase_inserted AFTER INSERT ON agent_runs BEGIN
                INSERT INTO agent_run_phases (run_id, phase, at) VALUES (NEW.id, NEW.phase, NEW.phase_changed_at);
            END;
            CREATE TRIGGER agent_runs_phase_changed AFTER UPDATE OF phase ON agent_runs WHEN NEW.phase IS NOT OLD.phase BEGIN
                INSERT INTO agent_run_phases (run_id, phase, at) VALUES (NEW.id, NEW.phase, NEW.phase_changed_at);
            END;
            """)

        registerContextMigrations(into: &migrator)

        // The process that runs an active run ("pid:start"), so that another ofj starting on the
        // same database leaves that run alone and only suspends runs whose process is gone.
        migrator.register("agent-4-run-owner", sql: "ALTER TABLE agent_runs ADD COLUMN owner TEXT;")

        // The exact change a write call was approved for and wrote (`PlannedChange.serialized`), so
        // a resumed run applies what the person saw instead of planning it again.
        migrator.register("agent-5-planned-change", sql: """
            ALTER TABLE agent_approvals ADD COLUMN change TEXT;
            ALTER TABLE agent_ledger ADD COLUMN change TEXT;
            """)

        // Answers replaced by `/retry` (`AgentRunner.regenerate`): kept as earlier versions, never
        // sent to a model again.
        migrator.register("agent-6-superseded-answers", sql: """
            CREATE TABLE agent_superseded_messages (
                message_id INTEGER PRIMARY KEY REFERENCES agent_messages(id) ON DELETE CASCADE,
                by_run_id TEXT NOT NULL,
                superseded_at REAL NOT NULL
            );
            """)

        // Full-text search over messages, tool summaries and titles (ThreadSearch.swift).
        registerFullTextMigration(into: &migrator)
        // The approval rule (config.json `approvals.rules`) that decided a write, for decisions
        // with source `rule`: "rule 2 (allow log_food when energy_kcal < 800)".
        migrator.register("rules-2-approval-rule", sql: "ALTER TABLE agent_approvals ADD COLUMN rule TEXT;")
        // Images and PDFs attached to user messages (issue 19).
        registerAttachmentMigrations(into: &migrator)
        // Content from outside the person read in a thread (UntrustedContent.swift): each read,
        // and when the person's next message cleared it; with each decision, what the card named
        // and which standing approval (grant or allow rule) was not used because of it.
        migrator.register("agent-7-untrusted-content", sql: """
            CREATE TABLE agent_untrusted_reads (
                id INTEGER PRIMARY KEY,
                thread_id TEXT NOT NULL REFERENCES agent_threads(id) ON DELETE CASCADE,
                run_id TEXT,
                kind TEXT NOT NULL,
                label TEXT NOT NULL,
                read_at REAL NOT NULL,
                cleared_at REAL,
                cleared_by_message_id INTEGER
            );
            CREATE INDEX agent_untrusted_reads_by_thread ON agent_untrusted_reads(thread_id, cleared_at, id);
            ALTER TABLE agent_approvals ADD COLUMN untrusted TEXT;
            ALTER TABLE agent_approvals ADD COLUMN standing_not_used TEXT;
            """)
        // The ledger of writes that are not a model run's (`WriteLedger`: `ofj mcp`), whose promise
        // is "a key is written at most once, ever": no foreign key, so no thread deletion (local or
        // pulled by sync) and no run clean-up can cascade into it. Rows already kept under the MCP
        // thread's runs move here.
        migrator.register("agent-8-durable-ledger", sql: """
            CREATE TABLE agent_durable_ledger (
                run_id TEXT NOT NULL,
                turn INTEGER NOT NULL,
                call_id TEXT NOT NULL,
                tool_name TEXT NOT NULL,
                arguments TEXT NOT NULL,
                outcome TEXT NOT NULL CHECK (outcome IN ('committed','denied','failed')),
                decision TEXT,
                result TEXT NOT NULL,
                summary TEXT NOT NULL,
                is_error INTEGER NOT NULL DEFAULT 0,
                recorded_at REAL NOT NULL,
                change TEXT,
                PRIMARY KEY (run_id, turn, call_id)
            );
            INSERT OR IGNORE INTO agent_durable_ledger
                (run_id, turn, call_id, tool_name, arguments, outcome, decision, result, summary, is_error, recorded_at, change)
                SELECT run_id, turn, call_id, tool_name, arguments, outcome, decision, result, summary, is_error, recorded_at, change
                FROM agent_ledger WHERE run_id IN (SELECT id FROM agent_runs WHERE thread_id = '\(mcpThreadID)');
            DELETE FROM agent_ledger WHERE run_id IN (SELECT id FROM agent_runs WHERE thread_id = '\(mcpThreadID)');
            """)
        // Messages written on another machine and pulled by sync (1), not typed here: the request to
        // the model and every view of the thread say so (`ConversationStore.pulledNote`). Local only.
        migrator.register("agent-9-pulled-messages", sql: "ALTER TABLE agent_messages ADD COLUMN pulled INTEGER NOT NULL DEFAULT 0;")
        // The tool groups a thread enabled beyond everyday (`ToolRegistry.specs(groups:)`), in the
        // order it enabled them, so every later request of the thread offers the same tools in the
        // same order. Local only: a thread pulled by sync starts with everyday and re-enables.
        migrator.register("agent-tools-1-thread-tool-groups", sql: """
            CREATE TABLE agent_thread_tool_groups (
                thread_id TEXT NOT NULL REFERENCES agent_threads(id) ON DELETE CASCADE,
                tool_group TEXT NOT NULL,
                ordinal INTEGER NOT NULL,
                enabled_at REAL NOT NULL,
                PRIMARY KEY (thread_id, tool_group)
            ) WITHOUT ROWID;
            """)
    }
}
