//! The server driven in process over a duplex pipe, as a client would over stdio: raw
//! JSON-RPC lines in, answers out, errors as results, and the server still answering after
//! one.

use cleave_mcp::{CleaveServer, Options};
use rmcp::ServiceExt;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

async fn send(w: &mut (impl AsyncWriteExt + Unpin), msg: Value) {
    let mut line = msg.to_string();
    line.push('\n');
    w.write_all(line.as_bytes()).await.expect("write");
    w.flush().await.expect("flush");
}

async fn answer(lines: &mut tokio::io::Lines<impl AsyncBufReadExt + Unpin>, id: u64) -> Value {
    loop {
        let line = lines.next_line().await.expect("read").expect("the server closed the pipe");
        let msg: Value = serde_json::from_str(&line).expect("every line is JSON");
        if msg["id"] == id {
            return msg;
        }
    }
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": arguments}})
}

#[tokio::test]
async fn a_client_gets_answers_and_errors_over_a_pipe() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path().join("root");
    std::fs::create_dir_all(root.join("docs")).expect("mkdir");
    std::fs::write(root.join("docs/a.md"), "# A\n\n## Install\n\nRun cargo.\n").expect("write");
    std::fs::write(tmp.path().join("secret.md"), "# Secret\n").expect("write");
    let options = Options { threads: 1, max_file_size: 1 << 20 };
    let server = CleaveServer::with_roots(&[root], &options).expect("server");
    let (client, pipe) = tokio::io::duplex(1 << 16);
    let running = tokio::spawn(async move {
        let service = server.serve(pipe).await.expect("initialized");
        service.waiting().await.expect("quit")
    });
    let (r, mut w) = tokio::io::split(client);
    let mut lines = BufReader::new(r).lines();

    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"}}});
    send(&mut w, init).await;
    let res = answer(&mut lines, 1).await;
    assert_eq!(res["result"]["serverInfo"]["name"], "cleave", "{res}");
    send(&mut w, json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;

    send(&mut w, json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})).await;
    let res = answer(&mut lines, 2).await;
    let mut names: Vec<&str> = res["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["outline", "read", "segment", "select"]);

    send(&mut w, call(3, "outline", json!({"path": "../secret.md"}))).await;
    let res = answer(&mut lines, 3).await;
    assert_eq!(res["result"]["isError"], true, "{res}");
    let text = res["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("outside the roots"), "{text}");

    send(&mut w, call(4, "outline", json!({"path": "."}))).await;
    let res = answer(&mut lines, 4).await;
    let files = &res["result"]["structuredContent"]["files"];
    assert_eq!(files[0]["path"], "docs/a.md", "{res}");
    assert_eq!(files[0]["entries"][1]["number"], "1.1");

    send(&mut w, call(5, "select", json!({"path": "docs", "query": "install", "budget": 500})))
        .await;
    let res = answer(&mut lines, 5).await;
    let text = res["result"]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("Run cargo.") && text.chars().count() <= 500, "{text}");

    // Closing the client's side ends the server.
    drop(w);
    drop(lines);
    running.await.expect("the server task ends");
}
