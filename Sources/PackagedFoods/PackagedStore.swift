// The packaged-food tables in the main database: the product and search cache (bounded, LRU)
// and the request log behind the per-machine rate limits. None of it is in backups: it is
// public data that can be fetched again.
import Foundation
import SQLiteKit

public struct PackagedStore: Sendable {
    public let queue: DatabaseQueue
    /// Products kept at most; the least recently used are dropped beyond it.
    public var productLimit: Int
    let now: @Sendable () -> Date

    public init(queue: DatabaseQueue, productLimit: Int = 20_000, now: @escaping @Sendable () -> Date = { Date() }) {
        self.queue = queue; self.productLimit = productLimit; self.now = now
    }

    /// Registers the tables with the main database's migrator (identifiers "packaged-").
    public static func registerMigrations(into migrator: inout Migrator) {
        migrator.register("packaged-1-cache", sql: """
            CREATE TABLE packaged_products (
                source TEXT NOT NULL,
                id TEXT NOT NULL,
                barcode TEXT,
                -- JSON of the mapped product; NULL when the source said "not found".
                body TEXT,
                fetched_at INTEGER NOT NULL,
                used_at INTEGER NOT NULL,
                PRIMARY KEY (source, id)
            );
            CREATE INDEX packaged_products_barcode ON packaged_products (barcode);
            CREATE INDEX packaged_products_used ON packaged_products (used_at);
            CREATE TABLE packaged_searches (
                source TEXT NOT NULL,
                query TEXT NOT NULL,
                body TEXT NOT NULL,
                fetched_at INTEGER NOT NULL,
                PRIMARY KEY (source, query)
            );
            -- One row per request sent, for the per-machine rate limits (all processes share it).
            CREATE TABLE packaged_requests (
                bucket TEXT NOT NULL,
                at INTEGER NOT NULL
            );
            CREATE INDEX packaged_requests_bucket ON packaged_requests (bucket, at);
            """)
    }

    /// Applies only these migrations (tests and tools).
    public static func migrate(_ db: Database) throws {
        var m = Migrator()
        registerMigrations(into: &m)
        try m.migrate(db)
    }

    // MARK: - Products

    /// A cached answer for a product: the product, or nil when the source said it does not exist.
    public struct CachedProduct: Sendable {
        public var product: PackagedProduct?
        public var fetchedAt: Date
    }

    static let encoder: JSONEncoder = { let e = JSONEncoder(); e.outputFormatting = [.sortedKeys]; return e }()

    /// The cached answer for `id` from `source`, marking it used. The mark is written at most
    /// once an hour per product: a read then needs no write transaction (it shows in the
    /// start-up time of a cached `ofj barcode`), and the LRU order only needs hours.
    public func cachedProduct(source: PackagedSource, id: String) throws -> CachedProduct? {
        let t = ms(now())
        // `unrestricted`: the hourly mark is an autocommit write, usually none at all.
        return try queue.unrestricted { db in
            guard let row = try db.row("SELECT body, fetched_at, used_at FROM packaged_products WHERE source = ? AND id = ?", [source.rawValue, id]),
                  let fetched = row[1].int64 else { return nil }
            if (row[2].int64 ?? 0) < t - 3_600_000 {
                try db.execute("UPDATE packaged_products SET used_at = ? WHERE source = ? AND id = ?", [t, source.rawValue, id])
            }
            let product: PackagedProduct?
            if let body = row[0].string {
                // A row this build cannot read (written by another version) is a cache miss.
                guard let p = try? JSONDecoder().decode(PackagedProduct.self, from: Data(body.utf8)) else { return nil }
                product = p
            } else {
                product = nil
            }
            return CachedProduct(product: product, fetchedAt: Date(timeIntervalSince1970: Double(fetched) / 1000))
        }
    }

    /// The cached answer read inside a caller's transaction (a write tool's plan), without
    /// marking it used.
    public static func cachedProduct(source: PackagedSource, id: String, in db: Database) throws -> CachedProduct? {
        guard let row = try db.row("SELECT body, fetched_at FROM packaged_products WHERE source = ? AND id = ?", [source.rawValue, id]),
              let fetched = row[1].int64 else { return nil }
        let product = row[0].string.flatMap { try? JSONDecoder().decode(PackagedProduct.self, from: Data($0.utf8)) }
        if row[0].string != nil && product == nil { return nil }
        return CachedProduct(product: product, fetchedAt: Date(timeIntervalSince1970: Double(fetched) / 1000))
    }

    /// Stores a product (or a "not found" answer for `id`) and trims the cache to its bound.
    public func store(_ product: PackagedProduct?, source: PackagedSource, id: String) throws {
        let body = try product.map { String(decoding: try PackagedStore.encoder.encode($0), as: UTF8.self) }
        let t = ms(now())
        try queue.write { db in
            try db.execute("""
                INSERT INTO packaged_products (source, id, barcode, body, fetched_at, used_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (source, id) DO UPDATE SET barcode = excluded.barcode, body = excluded.body,
                    fetched_at = excluded.fetched_at, used_at = excluded.used_at
                """, [source.rawValue, id, product?.barcode, body, t, t])
            let count = try db.scalar("SELECT count(*) FROM packaged_products").int ?? 0
            if count > productLimit {
                try db.execute("""
                    DELETE FROM packaged_products WHERE rowid IN
                        (SELECT rowid FROM packaged_products ORDER BY used_at, rowid LIMIT ?)
                    """, [count - productLimit])
            }
        }
    }

    public var productCount: Int { (try? queue.read { try $0.scalar("SELECT count(*) FROM packaged_products").int }) ?? 0 }

    // MARK: - Searches

    public struct CachedSearch: Sendable {
        public var products: [PackagedProduct]
        public var fetchedAt: Date
    }

    /// Queries are cached by their lowercased, whitespace-collapsed text.
    static func key(_ query: String) -> String {
        query.lowercased().split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    public func cachedSearch(source: PackagedSource, query: String) throws -> CachedSearch? {
        try queue.read { db in
            guard let row = try db.row("SELECT body, fetched_at FROM packaged_searches WHERE source = ? AND query = ?",
                                       [source.rawValue, PackagedStore.key(query)]),
                  let body = row[0].string, let fetched = row[1].int64,
                  let products = try? JSONDecoder().decode([PackagedProduct].self, from: Data(body.utf8)) else { return nil }
            return CachedSearch(products: products, fetchedAt: Date(timeIntervalSince1970: Double(fetched) / 1000))
        }
    }

    public func storeSearch(_ products: [PackagedProduct], source: PackagedSource, query: String) throws {
        let body = String(decoding: try PackagedStore.encoder.encode(products), as: UTF8.self)
        try queue.write { db in
            try db.execute("""
                INSERT INTO packaged_searches (source, query, body, fetched_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (source, query) DO UPDATE SET body = excluded.body, fetched_at = excluded.fetched_at
                """, [source.rawValue, PackagedStore.key(query), body, ms(now())])
            // Searches are small and only useful recently: keep the newest 500.
            try db.execute("""
                DELETE FROM packaged_searches WHERE rowid NOT IN
                    (SELECT rowid FROM packaged_searches ORDER BY fetched_at DESC LIMIT 500)
                """)
        }
    }

    // MARK: - Rate limits

    /// Records one request in `bucket` if fewer than `limit` were sent in the last `window`
    /// seconds by any process on this machine; otherwise returns the seconds until a slot frees.
    /// Checked and recorded in one IMMEDIATE transaction, so processes started together
    /// cannot both take the last slot.
    public func takeSlot(bucket: String, limit: Int, window: Double) throws -> Double? {
        let t = ms(now())
        let windowMS = Int64(window * 1000)
        return try queue.write { db -> Double? in
            try db.execute("DELETE FROM packaged_requests WHERE at <= ?", [t - windowMS])
            let rows = try db.rows("SELECT at FROM packaged_requests WHERE bucket = ? ORDER BY at", [bucket])
            if rows.count >= limit {
                let oldest = rows[rows.count - limit][0].int64 ?? t
                return max(0.001, Double(oldest + windowMS - t) / 1000)
            }
            try db.execute("INSERT INTO packaged_requests (bucket, at) VALUES (?, ?)", [bucket, t])
            return nil
        }
    }

    func ms(_ d: Date) -> Int64 { Int64((d.timeIntervalSince1970 * 1000).rounded()) }
}
