// Reading a child's pipe without FileHandle's readers, which trap (`try!`) on an interrupted read.
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `FileHandle.readDataToEndOfFile()` and `availableData` end in a `try!` inside Foundation, so a
/// signal that interrupts the read (EINTR: another test in the same process has installed a
/// handler, or a child's SIGCHLD arrives) kills the whole test run. These read with `read(2)` and
/// retry EINTR.
public enum PipeReading {
    /// Everything until end of file (or a read error).
    public static func readToEnd(_ handle: FileHandle) -> Data {
        var data = Data()
        while let chunk = readSome(handle) { data.append(chunk) }
        return data
    }

    /// The bytes one read returns, or nil at end of file (or on a read error).
    public static func readSome(_ handle: FileHandle, upTo count: Int = 65_536) -> Data? {
        var buffer = [UInt8](repeating: 0, count: count)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
            if n > 0 { return Data(buffer[0..<n]) }
            if n < 0, errno == EINTR { continue }
            return nil
        }
    }
}
