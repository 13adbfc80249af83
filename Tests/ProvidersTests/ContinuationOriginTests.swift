// The origin stamped on continuation items is stored with the thread: no credentials in it.
import Testing
@testable import Providers

@Suite struct ContinuationOriginTests {
    @Test func credentialsInTheBaseURLAreNotPartOfTheOrigin() {
        let c = AdapterConfig(provider: "openai", baseURL: "https://user:s3cret-token@proxy.example/v1?api-key=k3y#x", apiKey: "sk-x",
                              model: "m", keyVariable: "OPENAI_API_KEY")
        let origin = c.continuationOrigin(family: "chat")
        #expect(origin == "chat https://proxy.example/v1 m")
        #expect(!origin.contains("s3cret") && !origin.contains("k3y"))
        // An ordinary URL is kept as it is, so items stored before still match.
        let plain = AdapterConfig(provider: "openai", baseURL: "https://api.openai.com/v1", apiKey: "sk-x", model: "m", keyVariable: "OPENAI_API_KEY")
        #expect(plain.continuationOrigin(family: "chat") == "chat https://api.openai.com/v1 m")
    }
}
