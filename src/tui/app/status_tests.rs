//! The live status bar as the app fills it: the HTTP address and its
//! warning.

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Rect;

use super::{App, Header};
use crate::tui::ui::status;

fn first_line(http: Option<(&str, bool)>, width: u16) -> String {
    let header = Header {
        workspace: "/w".into(),
        socket: "/s.sock".into(),
        audit: "/a.jsonl".into(),
        label: None,
        sandbox: None,
        config: None,
    };
    let tz = chrono::FixedOffset::east_opt(0).unwrap();
    let mut app = App::new(header, chrono::Utc::now(), tz, Rect::new(0, 0, width, 2));
    app.http = http.map(|(u, l)| (u.to_string(), l));
    let mut term = Terminal::new(TestBackend::new(width, 2)).unwrap();
    let bar = app.status_bar().expect("a live app has a status bar");
    term.draw(|f| status::draw(f, &bar, f.area())).unwrap();
    let buf = term.backend().buffer();
    (0..width)
        .map(|x| buf[(x, 0)].symbol().to_string())
        .collect()
}

#[test]
fn the_http_url_is_shown_and_a_reachable_address_always_said() {
    let url = "http://127.0.0.1:4000/mcp/abc";
    assert!(first_line(Some((url, true)), 160).contains(url));
    assert!(!first_line(None, 160).contains("http"));
    // Narrow: the URL gives way, the warning does not.
    let narrow = first_line(Some(("http://0.0.0.0:4000/mcp/abc", false)), 80);
    assert!(narrow.contains("reachable from other machines"), "{narrow}");
}

#[test]
fn an_untrusted_project_file_is_said_and_never_gives_way() {
    let header = Header {
        workspace: "/w".into(),
        socket: "/s.sock".into(),
        audit: "/a.jsonl".into(),
        label: None,
        sandbox: None,
        config: Some(
            ".airlock.toml is not trusted: 7 settings that loosen ignored (airlock trust)".into(),
        ),
    };
    let tz = chrono::FixedOffset::east_opt(0).unwrap();
    for width in [160u16, 100] {
        let app = App::new(
            header.clone(),
            chrono::Utc::now(),
            tz,
            Rect::new(0, 0, width, 2),
        );
        let mut term = Terminal::new(TestBackend::new(width, 2)).unwrap();
        let bar = app.status_bar().unwrap();
        term.draw(|f| status::draw(f, &bar, f.area())).unwrap();
        let buf = term.backend().buffer();
        let second: String = (0..width)
            .map(|x| buf[(x, 1)].symbol().to_string())
            .collect();
        assert!(
            second.contains("⚠ .airlock.toml is not trusted"),
            "{second}"
        );
    }
}
