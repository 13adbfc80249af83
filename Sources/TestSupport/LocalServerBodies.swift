// What real local model servers answer, trimmed to the fields ofj reads: llama.cpp's /props and
// its context-size 400, Ollama's /api/show, vLLM's and LM Studio's model lists, and the streams
// seen from llama-server and llama-cpp-python with a small model. For LoopbackHTTPServer.

import Foundation

public enum LocalServerBodies {
    /// llama-server `GET /props` (b6xxx), started with `-c 4096 --jinja`.
    public static func llamaProps(nCtx: Int = 4_096, supportsTools: Bool = true) -> String {
        """
        {"default_generation_settings":{"id":0,"id_task":-1,"n_ctx":\(nCtx),"speculative":false,"is_processing":false,\
        "params":{"n_predict":-1,"temperature":0.800000011920929,"top_k":40}},"total_slots":1,\
        "model_path":"/models/gemma-3-270m-it-Q4_K_M.gguf","modalities":{"vision":false,"audio":false},\
        "chat_template":"{{ bos_token }}…","chat_template_caps":{"supports_parallel_tool_calls":false,"supports_preserve_reasoning":false,\
        "supports_string_content":true,"supports_system_role":false,"supports_tool_calls":\(supportsTools),"supports_tools":\(supportsTools),\
        "supports_typed_content":false},"bos_token":"<bos>","eos_token":"<eos>","build_info":"b6123-abcdef0"}
        """
    }

    /// llama-server's answer to a prompt over its context.
    public static let llamaContextExceeded = """
        {"error":{"code":400,"message":"request (10777 tokens) exceeds the available context size (4096 tokens), try increasing it",\
        "type":"exceed_context_size_error","n_prompt_tokens":10777,"n_ctx":4096}}
        """

    /// Ollama `POST /api/show` for a model with `PARAMETER num_ctx` set (or not).
    public static func ollamaShow(numCtx: Int? = 8_192, trained: Int = 131_072) -> String {
        let parameters = (numCtx.map { "num_ctx                        \($0)\\n" } ?? "") + "stop                           \\\"<|eot_id|>\\\""
        return """
            {"license":"LLAMA 3.2 COMMUNITY LICENSE","modelfile":"FROM llama3.2\\n","parameters":"\(parameters)",\
            "template":"<|start_header_id|>system<|end_header_id|>…","details":{"parent_model":"","format":"gguf","family":"llama",\
            "families":["llama"],"parameter_size":"3.2B","quantization_level":"Q4_K_M"},\
            "model_info":{"general.architecture":"llama","general.parameter_count":3212749888,"llama.context_length":\(trained),\
            "llama.embedding_length":3072,"llama.block_count":28},"capabilities":["completion","tools"],"modified_at":"2025-01-01T00:00:00Z"}
            """
    }

    /// vLLM `GET /v1/models`.
    public static func vllmModels(model: String = "Qwen/Qwen2.5-7B-Instruct", maxModelLen: Int = 32_768) -> String {
        """
        {"object":"list","data":[{"id":"\(model)","object":"model","created":1735689600,"owned_by":"vllm","root":"\(model)",\
        "parent":null,"max_model_len":\(maxModelLen),"permission":[{"id":"modelperm-1","object":"model_permission"}]}]}
        """
    }

    /// LM Studio `GET /api/v0/models`.
    public static func lmStudioModels(model: String = "qwen2.5-7b-instruct", loaded: Int? = 8_192, max: Int = 32_768) -> String {
        let loadedField = loaded.map { "\"loaded_context_length\":\($0)," } ?? ""
        return """
            {"object":"list","data":[{"id":"text-embedding-nomic","object":"model","type":"embeddings","state":"not-loaded","max_context_length":2048},\
            {"id":"\(model)","object":"model","type":"llm","publisher":"qwen","arch":"qwen2","compatibility_type":"gguf",\
            "quantization":"Q4_K_M","state":"loaded",\(loadedField)"max_context_length":\(max)}]}
            """
    }

    /// llama-cpp-python's `: ping` comment, sent every 15 s while it reads a long prompt.
    public static let ping = ": ping - 2026-12-01 21:58:15.123456+00:00\r\n\r\n"

    /// One Chat Completions chunk with text.
    public static func chunk(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
        return "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\(escaped)\"},\"finish_reason\":null}]}\n\n"
    }

    /// The closing chunk with `finish_reason` and usage, then `[DONE]`.
    public static func finish(_ reason: String, promptTokens: Int = 900, completionTokens: Int = 20) -> String {
        "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"\(reason)\"}],"
            + "\"usage\":{\"prompt_tokens\":\(promptTokens),\"completion_tokens\":\(completionTokens),\"total_tokens\":\(promptTokens + completionTokens)}}\n\n"
            + "data: [DONE]\n\n"
    }

    /// llama-server's progress event while it reads the prompt (`"return_progress": true`).
    public static func promptProgress(processed: Int, total: Int) -> String {
        "data: {\"choices\":[{\"finish_reason\":null,\"index\":0,\"delta\":{}}],\"object\":\"chat.completion.chunk\","
            + "\"prompt_progress\":{\"total\":\(total),\"cache\":0,\"processed\":\(processed),\"time_ms\":1200}}\n\n"
    }
}
