// A random bao-referee bot in one C++17 file, with no libraries beyond the
// standard one.
//
// Build and run it against the referee from the repository root:
//
//     g++ -O2 -std=c++17 -o target/bot-cpp sample-bots/cpp/bot.cpp
//     ./target/release/bao-referee match --south "target/bot-cpp"
//     ./target/release/bao-referee check "target/bot-cpp --seed 1"
//
// Everything it relies on is in PROTOCOL.md. In short: the referee writes one
// JSON object per line to our stdin, we answer with one JSON object per line
// on stdout, flushed at once. stdout is for protocol lines ONLY; diagnostics
// go to stderr, which the referee keeps in the game log.
//
// The file has three parts: a tiny JSON reader (enough for the referee's
// messages, which are plain JSON objects), the protocol loop, and
// choose_move(), the part to replace with your own engine.
//
// Several games in one process (protocol 1.1): this bot says "games":"many"
// in its ready, so the referee may keep it running after a game: instead of
// quit, game_over is then followed by the hello of the next game (perhaps
// another side, variant, start, time control or opponent), answered with
// ready like the first. A bot may keep anything between games (a cache, a
// hash table), but must take its side and the rest from each hello. This bot
// keeps nothing: with --seed N every game starts its generator from N again,
// so a game in a kept process is the game a fresh process would play. A bot
// that cannot play another game leaves "games" out and gets quit every time.

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>  // getpid

namespace {

constexpr int kProtocolVersion = 1;

// ---------------------------------------------------------------------------
// A tiny JSON reader.
//
// parse_json() turns one line into a tree of Json values. It accepts any JSON
// (the referee may add fields in later versions, of any type, and we must
// skip them), and throws std::runtime_error on malformed input. Numbers are
// kept as their text; as_u64() converts the ones we need.
// ---------------------------------------------------------------------------

struct Json {
  enum class Kind { Null, Bool, Number, String, Array, Object };
  Kind kind = Kind::Null;
  bool boolean = false;
  std::string text;  // a string's value, or a number's text
  std::vector<Json> items;  // an array's items
  std::vector<std::pair<std::string, Json>> fields;  // an object's fields, in order

  // The field `name` of an object, or nullptr (also when this is not an object).
  const Json* get(const std::string& name) const {
    if (kind != Kind::Object) return nullptr;
    for (const auto& field : fields)
      if (field.first == name) return &field.second;
    return nullptr;
  }
  bool is_string() const { return kind == Kind::String; }
  // A non-negative integer number, or throws (7.0, -1, "7" are refused).
  std::uint64_t as_u64() const {
    if (kind != Kind::Number || text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
      throw std::runtime_error("expected a non-negative integer");
    errno = 0;
    unsigned long long value = std::strtoull(text.c_str(), nullptr, 10);
    if (errno == ERANGE) throw std::runtime_error("integer out of range");
    return value;
  }
};

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : s_(text) {}

  Json parse_document() {
    Json value = parse_value(0);
    skip_space();
    if (pos_ != s_.size()) fail("trailing characters after the value");
    return value;
  }

 private:
  const std::string& s_;
  std::size_t pos_ = 0;

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error(what + " at byte " + std::to_string(pos_));
  }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  void expect_word(const char* word) {
    for (const char* p = word; *p; ++p) expect(*p);
  }

  Json parse_value(int depth) {
    if (depth > 64) fail("nested too deeply");
    skip_space();
    Json value;
    char c = peek();
    if (c == '{') {
      value.kind = Json::Kind::Object;
      ++pos_;
      skip_space();
      if (peek() == '}') { ++pos_; return value; }
      for (;;) {
        skip_space();
        std::string name = parse_string();
        skip_space();
        expect(':');
        value.fields.emplace_back(std::move(name), parse_value(depth + 1));
        skip_space();
        if (peek() == ',') { ++pos_; continue; }
        expect('}');
        return value;
      }
    }
    if (c == '[') {
      value.kind = Json::Kind::Array;
      ++pos_;
      skip_space();
      if (peek() == ']') { ++pos_; return value; }
      for (;;) {
        value.items.push_back(parse_value(depth + 1));
        skip_space();
        if (peek() == ',') { ++pos_; continue; }
        expect(']');
        return value;
      }
    }
    if (c == '"') {
      value.kind = Json::Kind::String;
      value.text = parse_string();
      return value;
    }
    if (c == 't') { expect_word("true"); value.kind = Json::Kind::Bool; value.boolean = true; return value; }
    if (c == 'f') { expect_word("false"); value.kind = Json::Kind::Bool; return value; }
    if (c == 'n') { expect_word("null"); return value; }
    if (c == '-' || (c >= '0' && c <= '9')) {
      std::size_t start = pos_;
      if (peek() == '-') ++pos_;
      while (pos_ < s_.size() && std::string("0123456789.eE+-").find(s_[pos_]) != std::string::npos) ++pos_;
      value.kind = Json::Kind::Number;
      value.text = s_.substr(start, pos_ - start);
      return value;
    }
    fail("expected a JSON value");
  }

  // Reads 4 hex digits of a \u escape.
  unsigned parse_hex4() {
    if (pos_ + 4 > s_.size()) fail("short \\u escape");
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      char h = s_[pos_++];
      code <<= 4;
      if (h >= '0' && h <= '9') code |= h - '0';
      else if (h >= 'a' && h <= 'f') code |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F') code |= h - 'A' + 10;
      else fail("bad hex digit in \\u escape");
    }
    return code;
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  std::string parse_string() {
    expect('"');
    std::string out;
    for (;;) {
      if (pos_ >= s_.size()) fail("unterminated string");
      char c = s_[pos_++];
      if (c == '"') return out;
      if (c != '\\') { out += c; continue; }
      if (pos_ >= s_.size()) fail("unterminated escape");
      char e = s_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned code = parse_hex4();
          // A surrogate pair encodes one character beyond U+FFFF.
          if (code >= 0xD800 && code < 0xDC00 && s_.compare(pos_, 2, "\\u") == 0) {
            pos_ += 2;
            unsigned low = parse_hex4();
            if (low >= 0xDC00 && low < 0xE000) code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            else fail("bad surrogate pair");
          }
          append_utf8(out, code);
          break;
        }
        default: fail("bad escape");
      }
    }
  }
};

Json parse_json(const std::string& line) { return JsonParser(line).parse_document(); }

// A string as a JSON string literal (quotes and escapes).
std::string json_quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"') out += "\\\"";
    else if (c == '\\') out += "\\\\";
    else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out += static_cast<char>(c);
  }
  return out + "\"";
}

// ---------------------------------------------------------------------------
// The protocol.
// ---------------------------------------------------------------------------

// Writes one line to the referee and flushes it: a line left in the buffer has
// not been sent, and our clock keeps running.
void send(const std::string& line) {
  std::cout << line << '\n' << std::flush;
}

// The engine: replace this with your own. `legal` is never empty, and every
// entry is a legal answer, in our own perspective (rows A and B are ours,
// columns from our left). The request's "position" object has the board:
// rows "A"/"B" are South's, "a"/"b" North's, each in its owner's numbering.
std::string choose_move(const Json& request, const std::vector<std::string>& legal, std::mt19937_64& rng) {
  (void)request;  // a real engine reads request.get("position")
  std::uniform_int_distribution<std::size_t> pick(0, legal.size() - 1);
  return legal[pick(rng)];
}

// Reads the request's "legal" list; throws if it is missing or not strings.
std::vector<std::string> legal_moves(const Json& request) {
  const Json* legal = request.get("legal");
  if (legal == nullptr || legal->kind != Json::Kind::Array || legal->items.empty())
    throw std::runtime_error("move_request without a non-empty \"legal\" array");
  std::vector<std::string> moves;
  for (const Json& item : legal->items) {
    if (!item.is_string()) throw std::runtime_error("\"legal\" holds a value that is not a string");
    moves.push_back(item.text);
  }
  return moves;
}

std::uint64_t parse_seed_arguments(int argc, char** argv) {
  if (argc == 1) {
    // No seed given: one from the time and the process id.
    auto now = std::chrono::steady_clock::now().time_since_epoch().count() ^
               std::chrono::system_clock::now().time_since_epoch().count();
    return static_cast<std::uint64_t>(now) ^ (static_cast<std::uint64_t>(getpid()) << 32);
  }
  std::string flag = argv[1];
  if (argc == 3 && flag == "--seed") {
    std::string text = argv[2];
    if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos && text.size() <= 19)
      return std::stoull(text);
  }
  std::cerr << "usage: bot [--seed N] (N a whole number)" << std::endl;
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t seed = parse_seed_arguments(argc, argv);
  std::cerr << "bot.cpp: seed " << seed << std::endl;  // --seed N replays a game
  const bool seeded = argc == 3;
  std::mt19937_64 rng(seed);
  int games = 0;

  std::string line;
  // getline fails at end of input (the referee closed our stdin): then exit 0.
  while (std::getline(std::cin, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    try {
      Json message = parse_json(line);
      const Json* type = message.get("type");
      if (type == nullptr || !type->is_string()) throw std::runtime_error("a message without a string \"type\"");
      // Later protocol versions may add fields: read only those we need.
      if (type->text == "hello") {
        const Json* protocol = message.get("protocol");
        if (protocol == nullptr || protocol->as_u64() != kProtocolVersion) {
          std::cerr << "bot.cpp: unsupported protocol version" << std::endl;
          return 1;
        }
        ++games;
        const Json* side = message.get("side");
        std::cerr << "bot.cpp: game " << games << ": playing "
                  << (side && side->is_string() ? side->text : "?") << std::endl;
        if (seeded) rng.seed(seed);  // every game from the same seed
        // Answer within time_control.startup_ms; "name" is required. "games":
        // "many": after game_over this process can play another game.
        send(R"({"type":"ready","name":"random-cpp","author":"bao-referee","version":"0.1.0","games":"many"})");
      } else if (type->text == "move_request") {
        const Json* id = message.get("id");
        if (id == nullptr) throw std::runtime_error("move_request without an \"id\"");
        std::string move = choose_move(message, legal_moves(message), rng);
        // Answer with the SAME id, or we lose (wrong_id).
        send("{\"type\":\"move\",\"id\":" + std::to_string(id->as_u64()) + ",\"move\":" + json_quote(move) + "}");
      } else if (type->text == "game_over") {
        // Nothing to answer; a quit follows, or the next game's hello.
        const Json* result = message.get("result");
        std::cerr << "bot.cpp: game over: " << (result && result->is_string() ? result->text : "?") << std::endl;
      } else if (type->text == "quit") {
        return 0;  // exit promptly: the referee waits 1 s, then stops us
      } else {
        std::cerr << "bot.cpp: ignoring a message of type " << type->text << std::endl;
      }
    } catch (const std::exception& error) {
      std::cerr << "bot.cpp: cannot read the referee's line (" << error.what() << "): " << line << std::endl;
      return 1;
    }
  }
  return 0;
}
