use std::collections::HashMap;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&args[1]).unwrap();
    let page: usize = args[2].parse().unwrap();
    let doc = pdf_oxide::PdfDocument::from_bytes(bytes).unwrap();
    let text = doc.extract_text(page).unwrap();
    let chars: String = doc.extract_chars(page).unwrap().iter().map(|c| c.char).collect();
    let mut m: HashMap<String, i64> = HashMap::new();
    for w in text.split_whitespace() {
        *m.entry(w.to_string()).or_default() += 1;
    }
    let mut g: HashMap<char, i64> = HashMap::new();
    for c in chars.chars().filter(|c| !c.is_whitespace()) {
        *g.entry(c).or_default() += 1;
    }
    for c in text.chars().filter(|c| !c.is_whitespace()) {
        *g.entry(c).or_default() -= 1;
    }
    let mut extra: Vec<_> = g.iter().filter(|(_, v)| **v < 0).collect();
    extra.sort();
    println!("text-only chars: {:?}", extra);
    // words of the text made only of chars the glyphs lack
    for w in text.split_whitespace() {
        if w.chars().all(|c| g.get(&c).copied().unwrap_or(0) < 0) {
            print!("{w} ");
        }
    }
    println!();
}
