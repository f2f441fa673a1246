// A random bao-referee bot in one Java 17 file, with no libraries beyond the JDK.
//
// Run it against the referee from the repository root (`java Bot.java` compiles
// the file in memory and runs it, which takes a second or two at startup):
//
//     ./target/release/bao-referee match --south "java sample-bots/java/Bot.java"
//     ./target/release/bao-referee check "java sample-bots/java/Bot.java --seed 1"
//
// Everything it relies on is in PROTOCOL.md. In short: the referee writes one
// JSON object per line to our stdin, we answer with one JSON object per line
// on stdout, flushed at once. stdout is for protocol lines ONLY (a stray
// System.out.println loses the game); diagnostics go to System.err, which the
// referee keeps in the game log.
//
// The file has three parts: the protocol loop (main), chooseMove(), the part to
// replace with your own engine, and a tiny JSON reader (the JDK has none).
//
// Several games in one process (protocol 1.1): this bot says "games":"many"
// in its ready, so the referee may keep it running after a game (and the
// second or two `java Bot.java` takes to start, and the JIT warming up,
// are paid once): instead of quit, game_over is then followed by the hello of
// the next game (perhaps another side, variant, start, time control or
// opponent), answered with ready like the first. A bot may keep anything
// between games (a cache, a hash table), but must take its side and the rest
// from each hello. This bot keeps nothing: with --seed N every game starts its
// generator from N again, so a game in a kept process is the game a fresh
// process would play. A bot that cannot play another game leaves "games" out
// and gets quit every time.

import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

public final class Bot {
    private static final int PROTOCOL_VERSION = 1;

    // stdout, in UTF-8, without automatic flushing: send() flushes every line.
    private static final PrintStream OUT =
            new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);

    private static void log(String text) {
        System.err.println("Bot.java: " + text);
    }

    // Writes one line to the referee and flushes it: a line left in the buffer
    // has not been sent, and our clock keeps running.
    private static void send(String line) {
        OUT.print(line + "\n");
        OUT.flush();
    }

    // The engine: replace this with your own. `legal` is never empty, and every
    // entry is a legal answer, in our own perspective (rows A and B are ours,
    // columns from our left). request.get("position") has the board: rows "A"/"B"
    // are South's, "a"/"b" North's, each in its owner's numbering.
    private static String chooseMove(Map<String, Object> request, List<String> legal, Random random) {
        return legal.get(random.nextInt(legal.size())); // uniform over the list
    }

    public static void main(String[] args) throws IOException {
        long seed;
        if (args.length == 0) {
            // No seed given: one from the time and the process id.
            seed = System.nanoTime() ^ (ProcessHandle.current().pid() << 32);
        } else if (args.length == 2 && args[0].equals("--seed") && args[1].matches("[0-9]{1,18}")) {
            seed = Long.parseLong(args[1]);
        } else {
            log("usage: java Bot.java [--seed N] (N a whole number)");
            System.exit(2);
            return;
        }
        log("seed " + seed); // --seed N replays a game
        boolean seeded = args.length == 2;
        Random random = new Random(seed);
        int games = 0;

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        // readLine() returns null at end of input (the referee closed our stdin): exit 0.
        while ((line = in.readLine()) != null) {
            Map<String, Object> message;
            try {
                message = Json.object(Json.parse(line), "the message");
                // Later protocol versions may add fields: read only those we need.
                Object type = message.get("type");
                if ("hello".equals(type)) {
                    if (!BigInteger.valueOf(PROTOCOL_VERSION).equals(message.get("protocol"))) {
                        log("unsupported protocol version " + message.get("protocol"));
                        System.exit(1);
                    }
                    games += 1;
                    log("game " + games + ": playing " + message.get("side") + " in " + message.get("variant"));
                    if (seeded) {
                        random.setSeed(seed); // every game from the same seed
                    }
                    // Answer within time_control.startup_ms; "name" is required. "games":
                    // "many": after game_over this process can play another game.
                    send("{\"type\":\"ready\",\"name\":\"random-java\",\"author\":\"bao-referee\","
                            + "\"version\":\"0.1.0\",\"games\":\"many\"}");
                } else if ("move_request".equals(type)) {
                    BigInteger id = Json.integer(message.get("id"), "id");
                    List<String> legal = Json.strings(message.get("legal"), "legal");
                    if (legal.isEmpty()) {
                        throw new IllegalArgumentException("\"legal\" is empty");
                    }
                    String move = chooseMove(message, legal, random);
                    // Answer with the SAME id, or we lose (wrong_id).
                    send("{\"type\":\"move\",\"id\":" + id + ",\"move\":" + Json.quote(move) + "}");
                } else if ("game_over".equals(type)) {
                    // Nothing to answer; a quit follows, or the next game's hello.
                    log("game over: " + message.get("result"));
                } else if ("quit".equals(type)) {
                    System.exit(0); // exit promptly: the referee waits 1 s, then stops us
                } else {
                    log("ignoring a message of type " + type);
                }
            } catch (IllegalArgumentException error) {
                log("cannot read the referee's line (" + error.getMessage() + "): " + line);
                System.exit(1);
            }
        }
        System.exit(0);
    }

    /**
     * A tiny JSON reader. parse() accepts any JSON value (the referee may add fields
     * of any type in later versions, which we must skip) and throws
     * IllegalArgumentException on malformed input. Objects become Maps, arrays Lists,
     * integers BigIntegers, other numbers Doubles, true/false Booleans, null null.
     */
    static final class Json {
        private final String s;
        private int pos;

        private Json(String s) {
            this.s = s;
        }

        static Object parse(String text) {
            Json parser = new Json(text);
            Object value = parser.value(0);
            parser.space();
            if (parser.pos != text.length()) {
                throw parser.error("trailing characters after the value");
            }
            return value;
        }

        @SuppressWarnings("unchecked")
        static Map<String, Object> object(Object value, String what) {
            if (!(value instanceof Map)) {
                throw new IllegalArgumentException(what + " is not a JSON object");
            }
            return (Map<String, Object>) value;
        }

        static BigInteger integer(Object value, String what) {
            if (!(value instanceof BigInteger) || ((BigInteger) value).signum() < 0) {
                throw new IllegalArgumentException("\"" + what + "\" is not a non-negative integer");
            }
            return (BigInteger) value;
        }

        static List<String> strings(Object value, String what) {
            if (!(value instanceof List)) {
                throw new IllegalArgumentException("\"" + what + "\" is not an array");
            }
            List<String> out = new ArrayList<>();
            for (Object item : (List<?>) value) {
                if (!(item instanceof String)) {
                    throw new IllegalArgumentException("\"" + what + "\" holds a value that is not a string");
                }
                out.add((String) item);
            }
            return out;
        }

        // A string as a JSON string literal.
        static String quote(String text) {
            StringBuilder out = new StringBuilder("\"");
            for (char c : text.toCharArray()) {
                if (c == '"' || c == '\\') {
                    out.append('\\').append(c);
                } else if (c < 0x20) {
                    out.append(String.format("\\u%04x", (int) c));
                } else {
                    out.append(c);
                }
            }
            return out.append('"').toString();
        }

        private IllegalArgumentException error(String what) {
            return new IllegalArgumentException(what + " at character " + pos);
        }

        private void space() {
            while (pos < s.length() && " \t\r\n".indexOf(s.charAt(pos)) >= 0) {
                pos++;
            }
        }

        private char peek() {
            return pos < s.length() ? s.charAt(pos) : '\0';
        }

        private void expect(char c) {
            if (peek() != c) {
                throw error("expected '" + c + "'");
            }
            pos++;
        }

        private Object word(String w, Object value) {
            for (char c : w.toCharArray()) {
                expect(c);
            }
            return value;
        }

        private Object value(int depth) {
            if (depth > 64) {
                throw error("nested too deeply");
            }
            space();
            char c = peek();
            switch (c) {
                case '{': {
                    pos++;
                    Map<String, Object> map = new LinkedHashMap<>();
                    space();
                    if (peek() == '}') {
                        pos++;
                        return map;
                    }
                    while (true) {
                        space();
                        String name = string();
                        space();
                        expect(':');
                        map.put(name, value(depth + 1));
                        space();
                        if (peek() == ',') {
                            pos++;
                            continue;
                        }
                        expect('}');
                        return map;
                    }
                }
                case '[': {
                    pos++;
                    List<Object> list = new ArrayList<>();
                    space();
                    if (peek() == ']') {
                        pos++;
                        return list;
                    }
                    while (true) {
                        list.add(value(depth + 1));
                        space();
                        if (peek() == ',') {
                            pos++;
                            continue;
                        }
                        expect(']');
                        return list;
                    }
                }
                case '"':
                    return string();
                case 't':
                    return word("true", Boolean.TRUE);
                case 'f':
                    return word("false", Boolean.FALSE);
                case 'n':
                    return word("null", null);
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        return number();
                    }
                    throw error("expected a JSON value");
            }
        }

        private Object number() {
            int start = pos;
            while (pos < s.length() && "0123456789.eE+-".indexOf(s.charAt(pos)) >= 0) {
                pos++;
            }
            String text = s.substring(start, pos);
            try {
                if (text.matches("-?[0-9]+")) {
                    return new BigInteger(text);
                }
                return Double.parseDouble(text);
            } catch (NumberFormatException e) {
                throw error("bad number " + text);
            }
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (true) {
                if (pos >= s.length()) {
                    throw error("unterminated string");
                }
                char c = s.charAt(pos++);
                if (c == '"') {
                    return out.toString();
                }
                if (c != '\\') {
                    out.append(c);
                    continue;
                }
                if (pos >= s.length()) {
                    throw error("unterminated escape");
                }
                char e = s.charAt(pos++);
                switch (e) {
                    case '"': out.append('"'); break;
                    case '\\': out.append('\\'); break;
                    case '/': out.append('/'); break;
                    case 'b': out.append('\b'); break;
                    case 'f': out.append('\f'); break;
                    case 'n': out.append('\n'); break;
                    case 'r': out.append('\r'); break;
                    case 't': out.append('\t'); break;
                    case 'u':
                        // Java strings are UTF-16, so a surrogate pair is two chars, as written.
                        if (pos + 4 > s.length()) {
                            throw error("short \\u escape");
                        }
                        int code = 0;
                        for (int i = 0; i < 4; i++) {
                            int digit = Character.digit(s.charAt(pos++), 16);
                            if (digit < 0) {
                                throw error("bad hex digit in \\u escape");
                            }
                            code = code * 16 + digit;
                        }
                        out.append((char) code);
                        break;
                    default:
                        throw error("bad escape");
                }
            }
        }
    }
}
