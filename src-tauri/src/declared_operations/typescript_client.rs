//! Writes the typed TypeScript client of the declared operations,
//! `ui/src/lib/shell-bindings/operations.ts`, as ts-rs writes the bindings: when the tests run.
//! CI fails when the committed file differs (`scripts/test-all.sh`). Each function builds one
//! `OperationCall` that either transport can make: the Tauri command with its named arguments,
//! or the HTTP method, path and JSON body.

use std::collections::BTreeMap;
use ts_rs::{Dependency, TypeVisitor, TS};

/// One declared operation, with its TypeScript types.
struct ClientOperation {
    name: &'static str,
    doc: Vec<&'static str>,
    method: &'static str,
    path: &'static str,
    params: Vec<&'static str>,
    body: Option<String>,
    output: String,
    /// What OpenCode's route answers in the output's place (`true`), if it does.
    http_answer: Option<&'static str>,
    /// The output's list field that OpenCode's route answers alone, its cursor in a header.
    page: Option<&'static str>,
}

/// Collects the exported types a type names at its top: itself, or its generic arguments
/// (`Vec<McpPromptItem>` names `McpPromptItem`), each with theirs.
struct NamedTypes<'imports>(&'imports mut BTreeMap<String, String>);

impl TypeVisitor for NamedTypes<'_> {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        match Dependency::from_ty::<T>() {
            Some(dependency) => {
                let file = dependency
                    .output_path
                    .to_string_lossy()
                    .trim_end_matches(".ts")
                    .to_string();
                let from = match file.strip_prefix("../shell-bindings/") {
                    Some(shell) => format!("./{shell}"),
                    None => format!("../bindings/{file}"),
                };
                self.0.insert(dependency.ts_name, from);
            }
            None => T::visit_generics(self),
        }
    }
}

/// The imports a type needs in the client file.
fn imports_of<T: TS + 'static>(imports: &mut BTreeMap<String, String>) {
    NamedTypes(imports).visit::<T>();
}

/// The TypeScript name of an operation's body type, if it has one.
macro_rules! type_name {
    () => {
        None
    };
    ($body:ty) => {
        Some(<$body as TS>::name())
    };
}

/// What OpenCode's route answers in the output's place, if the entry says.
macro_rules! http_answer {
    () => {
        None
    };
    ($answer:literal) => {
        Some(stringify!($answer))
    };
}

/// The imports of an operation's output type, unless the client promises no output.
macro_rules! output_imports {
    ($imports:ident, $output:ty) => {
        imports_of::<$output>(&mut $imports)
    };
    ($imports:ident, $output:ty, $answer:literal) => {};
}

/// The output's list field a paged route answers, if the entry says.
macro_rules! page_items {
    () => {
        None
    };
    ($items:ident) => {
        Some(stringify!($items))
    };
}

macro_rules! client_operations {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident : $method:ident $path:literal,
            params($($param:ident),*), body($($body:ty)?),
            output $output:ty,
            calls $handle:ident . $function:ident, relayed $relayed:literal, writes $writes:literal
            $(, http answers $answer:literal)? $(, http pages $items:ident by $cursor:literal)?;
    )*) => {
        fn declared() -> (Vec<ClientOperation>, BTreeMap<String, String>) {
            let mut imports = BTreeMap::new();
            let mut operations = Vec::new();
            $(
                output_imports!(imports, $output $(, $answer)?);
                $(imports_of::<$body>(&mut imports);)?
                operations.push(ClientOperation {
                    name: stringify!($name),
                    doc: vec![$($doc),*],
                    method: stringify!($method),
                    path: $path,
                    params: vec![$(stringify!($param)),*],
                    body: type_name!($($body)?),
                    output: <$output as TS>::name(),
                    http_answer: http_answer!($($answer)?),
                    page: page_items!($($items)?),
                });
            )*
            (operations, imports)
        }
    };
}

dossier_core::declared_operations!(client_operations);

/// `session_id` → `sessionId`: the name Tauri gives a command's argument in JavaScript.
fn camel_case(snake: &str) -> String {
    let mut words = snake.split('_');
    let first = words.next().unwrap_or_default().to_string();
    words.fold(first, |mut name, word| {
        let mut characters = word.chars();
        if let Some(initial) = characters.next() {
            name.extend(initial.to_uppercase());
            name.push_str(characters.as_str());
        }
        name
    })
}

fn client_function(operation: &ClientOperation) -> String {
    let params: Vec<String> = operation
        .params
        .iter()
        .map(|param| camel_case(param))
        .collect();
    let mut arguments: Vec<String> = params
        .iter()
        .map(|param| format!("{param}: string"))
        .collect();
    let mut named = params.clone();
    if let Some(body) = &operation.body {
        arguments.push(format!("body: {body}"));
        named.push("body".into());
    }
    let mut path = operation.path.to_string();
    for (snake, camel) in operation.params.iter().zip(&params) {
        path = path.replace(
            &format!("{{{snake}}}"),
            &format!("${{encodeURIComponent({camel})}}"),
        );
    }
    // A GET's input travels as its query string; any other method's as the JSON body.
    let in_query = operation.method == "GET" && operation.body.is_some();
    if in_query {
        path.push_str("${queryString(body)}");
    }
    let mut doc = operation
        .doc
        .iter()
        .map(|line| format!("\n     *{}", line.trim_end()))
        .collect::<String>();
    // The two transports answer differently: nothing is promised but that it is done.
    let output = match operation.http_answer {
        Some(answer) => {
            doc.push_str(&format!(
                "\n     *\n     * Resolves with nothing to read: the command answers `{}`, OpenCode's route `{answer}`.",
                operation.output
            ));
            "void".to_string()
        }
        None => operation.output.clone(),
    };
    format!(
        "    /**{doc}\n     */\n    {name}: ({arguments}) =>\n      call<{output}>({{ command: \"{command}\", args: {args}, method: \"{method}\", path: `{path}`{body}{page} }}),\n",
        name = camel_case(operation.name),
        arguments = arguments.join(", "),
        command = operation.name,
        args = if named.is_empty() {
            "{}".to_string()
        } else {
            format!("{{ {} }}", named.join(", "))
        },
        method = operation.method,
        body = if operation.body.is_some() && !in_query {
            ", body"
        } else {
            ""
        },
        page = operation
            .page
            .map(|items| format!(", page: \"{items}\""))
            .unwrap_or_default(),
    )
}

fn client_source() -> String {
    let (operations, imports) = declared();
    let mut source = String::from(
        "// Generated from the operation table (src-tauri/core/src/operations.rs) by\n\
         // src-tauri/src/declared_operations/typescript_client.rs when the Rust tests run; do not edit.\n",
    );
    for (name, from) in &imports {
        source.push_str(&format!("import type {{ {name} }} from \"{from}\";\n"));
    }
    source.push_str(
        "\n/** One call of a declared operation, in the terms of either transport. */\n\
         export interface OperationCall {\n\
         \x20 /** The Tauri command. */\n\
         \x20 command: string;\n\
         \x20 /** The command's named arguments (the Rust names in camelCase, as Tauri takes them). */\n\
         \x20 args: Record<string, unknown>;\n\
         \x20 method: \"GET\" | \"POST\" | \"PATCH\" | \"DELETE\";\n\
         \x20 /** The HTTP path, its ids encoded (and a GET's input as its query string). */\n\
         \x20 path: string;\n\
         \x20 /** The JSON body over HTTP but for a GET (also among `args` as `body`). */\n\
         \x20 body?: unknown;\n\
         \x20 /**\n\
         \x20  * A paged listing: the output's list field. Over HTTP the answer is that list alone, the\n\
         \x20  * next page's cursor in the `X-Next-Cursor` header (OpenCode's shape).\n\
         \x20  */\n\
         \x20 page?: string;\n\
         }\n\n\
         /** Makes one call and resolves with its output; each transport has one. */\n\
         export type OperationCaller = <T>(call: OperationCall) => Promise<T>;\n\n\
         /** A GET's input as its query string: each field that is set, as text. */\n\
         function queryString(input: object): string {\n\
         \x20 const search = new URLSearchParams();\n\
         \x20 for (const [key, value] of Object.entries(input)) {\n\
         \x20   if (value !== undefined && value !== null) search.set(key, String(value));\n\
         \x20 }\n\
         \x20 const text = search.toString();\n\
         \x20 return text === \"\" ? \"\" : `?${text}`;\n\
         }\n\n\
         /** The declared operations over `call`. */\n\
         export function operations(call: OperationCaller) {\n  return {\n",
    );
    for operation in &operations {
        source.push_str(&client_function(operation));
    }
    source.push_str("  };\n}\n\nexport type Operations = ReturnType<typeof operations>;\n");
    source
}

#[test]
fn export_bindings_operations_client() {
    let source = client_source();
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/ui/src/lib/shell-bindings/operations.ts"
    );
    std::fs::write(file, &source).unwrap_or_else(|error| panic!("{file}: {error}"));
}

#[test]
fn each_operation_calls_its_command_and_fills_its_path() {
    let source = client_source();
    assert!(source.contains(
        "    setMcpToolAlwaysAllowed: (name: string, body: AlwaysAllowChange) =>\n      \
         call<Array<McpToolPermission>>({ command: \"set_mcp_tool_always_allowed\", args: { name, body }, \
         method: \"POST\", path: `/dossier/mcp/tools/${encodeURIComponent(name)}`, body }),\n"
    ), "{source}");
    assert!(source.contains("import type { McpSettings } from \"../bindings/McpSettings\";"));
    // A list's element is imported; what only the element's own file names is not.
    assert!(source.contains("import type { McpPromptItem } from \"../bindings/McpPromptItem\";"));
    assert!(!source.contains("McpPromptArgument"), "{source}");
}

#[test]
fn a_get_s_input_goes_in_its_query_string_and_a_replaced_answer_is_not_promised() {
    let source = client_source();
    assert!(
        source.contains(
            "    search: (body: SearchRequest) =>\n      \
         call<Array<SearchResult>>({ command: \"search\", args: { body }, \
         method: \"GET\", path: `/dossier/search${queryString(body)}` }),\n"
        ),
        "{source}"
    );
    assert!(
        source.contains(
            "    connectMcp: (name: string) =>\n      \
         call<void>({ command: \"connect_mcp\", args: { name }, \
         method: \"POST\", path: `/mcp/${encodeURIComponent(name)}/connect` }),\n"
        ),
        "{source}"
    );
    assert!(
        source.contains("the command answers `McpStatus`, OpenCode's route `true`"),
        "{source}"
    );
    assert!(
        source.contains(
            "call<SessionPage>({ command: \"list_sessions\", args: { body }, \
         method: \"GET\", path: `/session${queryString(body)}`, page: \"sessions\" }),\n"
        ),
        "{source}"
    );
}

#[test]
fn argument_names_are_tauri_s_camel_case() {
    assert_eq!(camel_case("session_id"), "sessionId");
    assert_eq!(camel_case("name"), "name");
    assert_eq!(camel_case("message_id"), "messageId");
}
