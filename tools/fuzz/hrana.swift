// libFuzzer target: the Hrana response decoder (Sources/Hrana), through the
// real HranaClient calls the sink makes. Byte 0 picks the call (execute, batch, transaction) and,
// rarely, an error status; the rest is the HTTP response body.
import Dispatch
import HTTP
@testable import Hrana

struct CannedTransport: HTTPTransport {
    var status: Int
    var body: [UInt8]
    func send(_ request: HTTPRequest) async throws -> HTTPStreamingResponse {
        let body = body
        return HTTPStreamingResponse(head: HTTPResponseHead(status: status, headers: [HTTPHeader("Retry-After", "2")]),
                                     body: AsyncThrowingStream { $0.yield(body); $0.finish() })
    }
}

let configuration = try! TursoConfiguration(databaseURL: "http://127.0.0.1:9", authToken: "fuzz-token")
let statements = [HranaStatement("INSERT INTO t VALUES (?)", [.integer(1)]), HranaStatement("SELECT 1")]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHrana(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size > 0, let data else { return 0 }
    let selector = data[0]
    let statuses = [400, 401, 404, 429, 500]
    let status = selector >= 0xF0 ? statuses[Int(selector) % statuses.count] : 200
    let client = HranaClient(configuration: configuration,
                             transport: CannedTransport(status: status, body: Array(UnsafeBufferPointer(start: data + 1, count: size - 1))))
    let done = DispatchSemaphore(value: 0)
    Task {
        defer { done.signal() }
        do {
            switch selector % 3 {
            case 0: _ = try await client.execute(statements[1])
            case 1: _ = try await client.batch(statements.map { HranaBatchStep($0) })
            default: _ = try await client.transaction(statements)
            }
        } catch let error as HranaError {
            _ = error.description
        } catch {
            fatalError("the client threw \(type(of: error)), not a HranaError")
        }
    }
    done.wait()
    return 0
}
