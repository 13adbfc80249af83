// Incremental reads of one blob value (sqlite3_blob_*), so a large value can be streamed without
// a whole copy in memory.
import CSQLite

extension Database {
    /// Calls `body` with consecutive pieces (at most `chunkSize` bytes) of the blob in
    /// `table.column` of the row with `rowid`, inside the caller's read. Throws when the row is gone.
    public func readBlob(table: String, column: String, rowid: Int64, chunkSize: Int = 3 * 64 * 1024,
                         _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        var blob: OpaquePointer?
        let rc = sqlite3_blob_open(handle, "main", table, column, rowid, 0, &blob)
        guard rc == SQLITE_OK, let blob else {
            if let blob { sqlite3_blob_close(blob) }
            throw error(code: rc)
        }
        defer { sqlite3_blob_close(blob) }
        let total = Int(sqlite3_blob_bytes(blob))
        var buffer = [UInt8](repeating: 0, count: min(max(chunkSize, 1), max(total, 1)))
        var offset = 0
        while offset < total {
            let n = min(buffer.count, total - offset)
            let r = buffer.withUnsafeMutableBytes { sqlite3_blob_read(blob, $0.baseAddress, Int32(n), Int32(offset)) }
            guard r == SQLITE_OK else { throw error(code: r) }
            try buffer.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            offset += n
        }
    }
}

extension Database {
    /// Writes `bytes` into the blob in `table.column` of the row with `rowid` (made with
    /// `zeroblob(N)` of the same size) in pieces, so SQLite needs no whole copy of its own.
    public func writeBlob(table: String, column: String, rowid: Int64, _ bytes: UnsafeRawBufferPointer,
                          chunkSize: Int = 256 * 1024) throws {
        var blob: OpaquePointer?
        let rc = sqlite3_blob_open(handle, "main", table, column, rowid, 1, &blob)
        guard rc == SQLITE_OK, let blob else {
            if let blob { sqlite3_blob_close(blob) }
            throw error(code: rc)
        }
        defer { sqlite3_blob_close(blob) }
        var offset = 0
        while offset < bytes.count {
            let n = min(chunkSize, bytes.count - offset)
            let r = sqlite3_blob_write(blob, bytes.baseAddress! + offset, Int32(n), Int32(offset))
            guard r == SQLITE_OK else { throw error(code: r) }
            offset += n
        }
    }
}
