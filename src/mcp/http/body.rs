//! Request bodies read with a bound on size and time, and response bodies
//! that tell when the client went away before the end.

use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http_body::{Body, Frame, SizeHint};
use http_body_util::BodyExt;
use http_body_util::combinators::BoxBody;

/// Why a request body was not read.
#[derive(Debug)]
pub enum BodyError {
    /// Longer than the limit (bytes seen so far).
    TooLarge(usize),
    /// Not finished in time.
    TooSlow,
    /// The connection failed while reading.
    Failed(String),
}

/// Read `body` whole, refusing more than `max` bytes or more than
/// `within` to arrive. Stops reading at the limit (the rest is never held).
pub async fn read_bounded<B>(body: B, max: usize, within: Duration) -> Result<Bytes, BodyError>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: std::fmt::Display,
{
    let read = async {
        let mut body = body;
        let mut out = BytesMut::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| BodyError::Failed(e.to_string()))?;
            if let Ok(data) = frame.into_data() {
                if out.len() + data.len() > max {
                    return Err(BodyError::TooLarge(out.len() + data.len()));
                }
                out.extend_from_slice(&data);
            }
        }
        Ok(out.freeze())
    };
    tokio::time::timeout(within, read)
        .await
        .unwrap_or(Err(BodyError::TooSlow))
}

/// Called when a response body is dropped before its end.
pub type OnAbandon = Box<dyn FnOnce() + Send + Sync>;

/// A response body that runs `on_abandon` if it is dropped unfinished
/// (the client disconnected while the answer was still coming).
pub struct WatchedBody {
    inner: BoxBody<Bytes, Infallible>,
    on_abandon: Option<OnAbandon>,
    /// Kept until the body is dropped (at its end or abandoned); never read.
    held: Option<Box<dyn Send + Sync>>,
}

impl WatchedBody {
    /// Watch `inner`.
    pub fn new(inner: BoxBody<Bytes, Infallible>, on_abandon: OnAbandon) -> Self {
        Self {
            inner,
            on_abandon: Some(on_abandon),
            held: None,
        }
    }

    /// Keep `value` alive as long as the body (its `Drop` runs when the
    /// answer has been sent or abandoned).
    #[must_use]
    pub fn holding(mut self, value: Box<dyn Send + Sync>) -> Self {
        self.held = Some(value);
        self
    }
}

impl Body for WatchedBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(None) = polled {
            self.on_abandon = None;
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for WatchedBody {
    fn drop(&mut self) {
        if let Some(f) = self.on_abandon.take() {
            f();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::Full;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[tokio::test]
    async fn bodies_over_the_limit_are_refused() {
        let ok = read_bounded(Full::new(Bytes::from("abc")), 3, Duration::from_secs(1)).await;
        assert_eq!(ok.unwrap(), "abc");
        let big = read_bounded(Full::new(Bytes::from("abcd")), 3, Duration::from_secs(1)).await;
        assert!(matches!(big, Err(BodyError::TooLarge(4))));
    }

    #[tokio::test]
    async fn an_unfinished_body_reports_its_abandonment() {
        let fired = Arc::new(AtomicBool::new(false));
        let f = fired.clone();
        let body = WatchedBody::new(
            Full::new(Bytes::from("x")).boxed(),
            Box::new(move || f.store(true, Ordering::SeqCst)),
        );
        drop(body);
        assert!(fired.load(Ordering::SeqCst));
        let fired = Arc::new(AtomicBool::new(false));
        let f = fired.clone();
        let body = WatchedBody::new(
            Full::new(Bytes::from("x")).boxed(),
            Box::new(move || f.store(true, Ordering::SeqCst)),
        );
        let _ = body.collect().await;
        assert!(
            !fired.load(Ordering::SeqCst),
            "a finished body is not abandoned"
        );
    }
}

#[cfg(test)]
mod limit_tests {
    #[test]
    fn http_accepts_what_stdio_accepts() {
        assert_eq!(
            crate::config::http::HttpConfig::default().max_body_bytes,
            crate::mcp::transport::MAX_MESSAGE_BYTES
        );
    }
}
