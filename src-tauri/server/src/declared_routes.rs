//! The operation table (`dossier_core::operations`) expanded for HTTP: one axum handler and
//! route per declared operation. A handler takes the path's ids and the input: a GET's from its
//! query string (unknown keys ignored, as OpenCode's clients add `directory`), any other
//! method's from its JSON body (an empty body reads as `{}`, as the hand-written routes do). It
//! calls the core function and answers its output as JSON, or the entry's `http answers` value
//! where OpenCode's route answers that (`true`) instead, or (`http pages`) a page's list with the
//! next page's cursor in OpenCode's headers; a core error becomes its
//! `{kind, message}` body and status (`error.rs`). Operations marked `writes` run to completion
//! even if the client goes away (`ledger_writes.rs`). Nothing here is written per operation:
//! adding one is an entry in the table.

use crate::error::ServerResult;
use crate::ledger_writes::LedgerWrites;
use crate::paging_headers::next_page_headers;
use crate::request_body::{JsonBody, QueryParams};
use crate::routes::ServerState;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::Uri;
use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter};
use axum::{Json, Router};
use dossier_core::{Ledger, LedgerError};
use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;

/// The body of an operation that takes none: nothing is read.
pub struct NoBody;

impl<State: Send + Sync> FromRequestParts<State> for NoBody {
    type Rejection = Infallible;

    async fn from_request_parts(_parts: &mut Parts, _state: &State) -> Result<Self, Infallible> {
        Ok(Self)
    }
}

/// The path's ids, in the order the operation names them.
fn path_values<const COUNT: usize>(
    params: &HashMap<String, String>,
    names: [&str; COUNT],
) -> [String; COUNT] {
    names.map(|name| params.get(name).cloned().unwrap_or_default())
}

/// Runs the core call, as its own task when it writes (see `LedgerWrites`).
async fn run<T: Send + 'static>(
    writes: &LedgerWrites,
    finish: bool,
    call: impl Future<Output = Result<T, LedgerError>> + Send + 'static,
) -> ServerResult<T> {
    if finish {
        writes.finish(call).await
    } else {
        Ok(call.await?)
    }
}

/// The extractor of an operation's input: none, a GET's query string, or the JSON body.
macro_rules! body_extractor {
    ($method:ident) => {
        NoBody
    };
    (GET $body:ty) => {
        QueryParams<$body>
    };
    ($method:ident $body:ty) => {
        JsonBody
    };
}

/// The core call, with the input parsed first (a bad body or query is a 400 before anything
/// runs).
macro_rules! core_call {
    ($ledger:ident, $request:ident, $method:ident, $handle:ident . $function:ident, [$($param:ident),*]) => {{
        let NoBody = $request;
        async move { $ledger.$handle().$function($(&$param,)*).await }
    }};
    ($ledger:ident, $request:ident, GET, $handle:ident . $function:ident, [$($param:ident),*], $body:ty) => {{
        let QueryParams::<$body>(body) = $request;
        async move { $ledger.$handle().$function($(&$param,)* body).await }
    }};
    ($ledger:ident, $request:ident, $method:ident, $handle:ident . $function:ident, [$($param:ident),*], $body:ty) => {{
        let body: $body = $request.parse_or_default()?;
        async move { $ledger.$handle().$function($(&$param,)* body).await }
    }};
}

/// The `limit` of a request's query string, which the next page's `Link` repeats (a malformed
/// one was refused before the call).
fn query_limit(uri: &Uri) -> Option<u32> {
    #[derive(serde::Deserialize)]
    struct Limit {
        limit: Option<u32>,
    }
    axum::extract::Query::<Limit>::try_from_uri(uri)
        .ok()
        .and_then(|axum::extract::Query(found)| found.limit)
}

/// The answer: the output as JSON; or the entry's `http answers` value in its place (the output
/// is then only waited for); or, for `http pages`, the page's list with the next page's cursor
/// in OpenCode's headers (`paging_headers.rs`).
macro_rules! http_answer {
    ($output:ty, $value:expr, $uri:ident) => {
        Json::<$output>($value).into_response()
    };
    ($output:ty, $value:expr, $uri:ident, answers $answer:literal) => {{
        $value;
        Json($answer).into_response()
    }};
    ($output:ty, $value:expr, $uri:ident, pages $items:ident by $cursor:literal) => {{
        let page: $output = $value;
        let headers = next_page_headers(
            $uri.path(),
            query_limit(&$uri),
            $cursor,
            page.next_cursor.as_deref(),
        );
        (headers, Json(page.$items)).into_response()
    }};
}

macro_rules! axum_routes {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident : $method:ident $path:literal,
            params($($param:ident),*), body($($body:ty)?),
            output $output:ty,
            calls $handle:ident . $function:ident, relayed $relayed:literal, writes $writes:literal
            $(, http answers $answer:literal)? $(, http pages $items:ident by $cursor:literal)?;
    )*) => {
        $(
            $(#[doc = $doc])*
            async fn $name(
                State(ledger): State<Ledger>,
                State(writes): State<LedgerWrites>,
                Path(params): Path<HashMap<String, String>>,
                _uri: Uri,
                request_body: body_extractor!($method $($body)?),
            ) -> ServerResult<Response> {
                let [$($param),*] = path_values(&params, [$(stringify!($param)),*]);
                let call = core_call!(
                    ledger, request_body, $method, $handle.$function, [$($param),*] $(, $body)?
                );
                Ok(http_answer!(
                    $output,
                    run(&writes, $writes, call).await?,
                    _uri
                    $(, answers $answer)?
                    $(, pages $items by $cursor)?
                ))
            }
        )*

        /// `router` with a route for every declared operation.
        pub fn declared_routes(router: Router<ServerState>) -> Router<ServerState> {
            router$(.route($path, on(MethodFilter::$method, $name)))*
        }
    };
}

dossier_core::declared_operations!(axum_routes);
