//! The outgoing half of a line transport: whole lines, in order, written
//! straight to the peer while it keeps up, and by a flusher task when it
//! does not.
//!
//! [`LineOut::push`] is synchronous: it writes what the peer takes at once
//! (without waiting) and queues the rest, so a line is either accepted
//! whole or refused, and nothing a caller cancels later can cut one in
//! half. The flusher task writes the queue when the peer has room again.
//! [`LineOut::room`] is the back-pressure: it waits while more than
//! [`MAX_QUEUED`] bytes are queued.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use tokio::io::AsyncWrite;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

/// Bytes queued for a slow peer before senders wait.
pub(super) const MAX_QUEUED: usize = 4 * 1024 * 1024;

type Writer = Pin<Box<dyn AsyncWrite + Send>>;

struct State {
    w: Writer,
    /// Lines not yet written in full, oldest first.
    queue: VecDeque<Vec<u8>>,
    /// Bytes of the first queued line already written.
    head_done: usize,
    /// Bytes in the queue not yet written.
    queued: usize,
    /// A write went through without a flush yet.
    unflushed: bool,
    /// No more lines: write the queue, then shut the stream down.
    closing: bool,
    /// Writing failed or the stream is shut: every later push fails.
    dead: Option<io::ErrorKind>,
    /// The flusher, parked until there is something to do.
    flusher: Option<Waker>,
}

struct Shared {
    state: Mutex<State>,
    /// Told when the queue shrinks (or the stream dies).
    drained: Notify,
}

/// The sending side of a connection (cheap to clone; every clone writes
/// into the same ordered stream). When the last clone is dropped, the
/// stream is closed as by [`LineOut::close`].
#[derive(Clone)]
pub(super) struct LineOut {
    handle: Arc<Handle>,
}

struct Handle {
    shared: Arc<Shared>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        close(&self.shared);
    }
}

impl LineOut {
    /// Start writing to `write`; must be called inside a Tokio runtime (it
    /// starts the flusher task, which ends once the stream is closed).
    pub(super) fn start<W>(write: W) -> (Self, JoinHandle<()>)
    where
        W: AsyncWrite + Send + 'static,
    {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                w: Box::pin(write),
                queue: VecDeque::new(),
                head_done: 0,
                queued: 0,
                unflushed: false,
                closing: false,
                dead: None,
                flusher: None,
            }),
            drained: Notify::new(),
        });
        let flusher = tokio::spawn(flush(shared.clone()));
        let handle = Arc::new(Handle { shared });
        (Self { handle }, flusher)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        lock(&self.handle.shared)
    }

    /// Send one line (`line` ends with its newline): written now as far as
    /// the peer takes it, the rest queued behind earlier lines. `Err`: the
    /// stream is closed or failed, and the line was not sent.
    pub(super) fn push(&self, line: Vec<u8>) -> io::Result<()> {
        let mut st = self.lock();
        if let Some(kind) = st.dead {
            return Err(gone(kind));
        }
        if st.closing {
            return Err(gone(io::ErrorKind::NotConnected));
        }
        let mut done = 0;
        if st.queue.is_empty() {
            let mut cx = Context::from_waker(Waker::noop());
            done = match write_some(&mut st, &mut cx, &line) {
                Poll::Ready(Ok(n)) => n,
                Poll::Ready(Err(e)) => return Err(e),
                Poll::Pending => 0,
            };
            if done == line.len() {
                if st.w.as_mut().poll_flush(&mut cx).is_pending() {
                    st.unflushed = true;
                    wake(&mut st);
                }
                return Ok(());
            }
        }
        st.queued += line.len() - done;
        if st.queue.is_empty() {
            st.head_done = done;
        }
        st.queue.push_back(line);
        wake(&mut st);
        Ok(())
    }

    /// Wait while the queue holds more than [`MAX_QUEUED`] bytes (a peer
    /// that does not read); returns at once when the stream is dead.
    pub(super) async fn room(&self) {
        loop {
            let drained = self.handle.shared.drained.notified();
            {
                let st = self.lock();
                if st.queued <= MAX_QUEUED || st.dead.is_some() {
                    return;
                }
            }
            drained.await;
        }
    }

    /// No more lines: the flusher writes what is queued, then shuts the
    /// stream down (the peer sees EOF) and ends.
    pub(super) fn close(&self) {
        close(&self.handle.shared);
    }
}

fn lock(shared: &Shared) -> std::sync::MutexGuard<'_, State> {
    shared.state.lock().unwrap_or_else(PoisonError::into_inner)
}

fn close(shared: &Shared) {
    let mut st = lock(shared);
    st.closing = true;
    wake(&mut st);
}

fn gone(kind: io::ErrorKind) -> io::Error {
    io::Error::new(kind, "the peer is gone")
}

fn wake(st: &mut State) {
    if let Some(w) = st.flusher.take() {
        w.wake();
    }
}

/// Write from `buf` until done or the peer has no room; a failure marks
/// the stream dead.
fn write_some(st: &mut State, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
    let mut done = 0;
    while done < buf.len() {
        match st.w.as_mut().poll_write(cx, &buf[done..]) {
            Poll::Ready(Ok(0)) => return Poll::Ready(Err(die(st, io::ErrorKind::WriteZero))),
            Poll::Ready(Ok(n)) => done += n,
            Poll::Ready(Err(e)) if e.kind() == io::ErrorKind::Interrupted => {}
            Poll::Ready(Err(e)) => {
                tracing::debug!("writing to the peer failed: {e}");
                return Poll::Ready(Err(die(st, e.kind())));
            }
            Poll::Pending if done == 0 => return Poll::Pending,
            Poll::Pending => break,
        }
    }
    Poll::Ready(Ok(done))
}

fn die(st: &mut State, kind: io::ErrorKind) -> io::Error {
    st.dead = Some(kind);
    st.queue.clear();
    st.queued = 0;
    gone(kind)
}

/// The flusher: write the queue whenever there is one and the peer has
/// room; at close, finish it and shut the stream down.
async fn flush(shared: Arc<Shared>) {
    std::future::poll_fn(|cx| {
        let mut st = lock(&shared);
        let step = flush_step(&mut st, cx);
        if st.queued <= MAX_QUEUED || st.dead.is_some() {
            shared.drained.notify_waiters();
        }
        if step.is_pending() {
            st.flusher = Some(cx.waker().clone());
        }
        step
    })
    .await;
}

/// One turn of the flusher: `Ready` when it is done for good.
fn flush_step(st: &mut State, cx: &mut Context<'_>) -> Poll<()> {
    if st.dead.is_some() {
        return Poll::Ready(());
    }
    while let Some(line) = st.queue.pop_front() {
        let from = st.head_done;
        match write_some(st, cx, &line[from..]) {
            Poll::Ready(Ok(n)) if from + n == line.len() => {
                st.queued -= n;
                st.head_done = 0;
                st.unflushed = true;
            }
            Poll::Ready(Ok(n)) => {
                st.queued -= n;
                st.head_done = from + n;
                st.queue.push_front(line);
            }
            Poll::Ready(Err(_)) => return Poll::Ready(()),
            Poll::Pending => {
                st.queue.push_front(line);
                return Poll::Pending;
            }
        }
    }
    if st.unflushed {
        match st.w.as_mut().poll_flush(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Err(e)) => {
                tracing::debug!("flushing to the peer failed: {e}");
                die(st, e.kind());
                return Poll::Ready(());
            }
            Poll::Ready(Ok(())) => st.unflushed = false,
        }
    }
    if !st.closing {
        return Poll::Pending;
    }
    match st.w.as_mut().poll_shutdown(cx) {
        Poll::Pending => Poll::Pending,
        Poll::Ready(_) => {
            st.dead = Some(io::ErrorKind::NotConnected);
            Poll::Ready(())
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, DuplexStream};

    use super::*;

    fn line(i: usize, len: usize) -> Vec<u8> {
        let mut l = format!("{i}:").into_bytes();
        l.resize(len.max(l.len()), b'a' + u8::try_from(i % 26).unwrap());
        l.push(b'\n');
        l
    }

    async fn read_all(mut r: DuplexStream, slow: bool) -> Vec<u8> {
        let mut all = Vec::new();
        let mut buf = [0u8; 7];
        loop {
            let n = r.read(&mut buf).await.unwrap();
            if n == 0 {
                return all;
            }
            all.extend_from_slice(&buf[..n]);
            if slow && all.len() % 5 == 0 {
                tokio::task::yield_now().await;
            }
        }
    }

    #[tokio::test]
    async fn a_slow_peer_gets_every_line_whole_and_in_order() {
        let (w, r) = tokio::io::duplex(16);
        let (out, flusher) = LineOut::start(w);
        let reader = tokio::spawn(read_all(r, true));
        let mut want = Vec::new();
        for i in 0..300 {
            let l = line(i, (i * 37) % 300);
            want.extend_from_slice(&l);
            out.push(l).unwrap();
            if i % 7 == 0 {
                tokio::task::yield_now().await;
            }
        }
        drop(out);
        flusher.await.unwrap();
        assert_eq!(reader.await.unwrap(), want);
    }

    #[tokio::test]
    async fn close_writes_what_is_queued_then_the_peer_sees_eof() {
        let (w, r) = tokio::io::duplex(8);
        let (out, flusher) = LineOut::start(w);
        let keep = out.clone();
        out.push(line(1, 100)).unwrap();
        out.push(line(2, 100)).unwrap();
        out.close();
        assert!(
            keep.push(line(3, 1)).is_err(),
            "a closed stream takes no more"
        );
        let got = read_all(r, false).await;
        flusher.await.unwrap();
        assert_eq!(got, [line(1, 100), line(2, 100)].concat());
    }

    #[tokio::test]
    async fn a_peer_that_does_not_read_holds_senders_back() {
        let (w, mut r) = tokio::io::duplex(1024);
        let (out, _flusher) = LineOut::start(w);
        let big = MAX_QUEUED / 4;
        for i in 0..5 {
            out.push(line(i, big)).unwrap();
        }
        let waited = tokio::time::timeout(Duration::from_millis(200), out.room()).await;
        assert!(
            waited.is_err(),
            "room() returned with {} bytes queued",
            5 * big
        );
        let sender = out.clone();
        let room = tokio::spawn(async move { sender.room().await });
        let mut sink = vec![0u8; 64 * 1024];
        let mut read = 0;
        while !room.is_finished() {
            read += r.read(&mut sink).await.unwrap();
        }
        assert!(
            read >= big,
            "room() returned after only {read} bytes were read"
        );
    }

    #[tokio::test]
    async fn a_gone_peer_makes_sending_fail() {
        let (w, r) = tokio::io::duplex(8);
        let (out, flusher) = LineOut::start(w);
        drop(r);
        let failed = (0..100).any(|i| out.push(line(i, 64)).is_err());
        assert!(failed, "pushing to a closed peer kept succeeding");
        out.close();
        tokio::time::timeout(Duration::from_secs(5), flusher)
            .await
            .expect("the flusher ends once the peer is gone")
            .unwrap();
    }
}
