package io.batchconsumer.jdbc;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Stores headers as text, one {@code key=value} a line. In keys and values a backslash, '=',
 * a line feed and a carriage return are escaped as {@code \\}, {@code \=}, {@code \n} and {@code \r},
 * so any header round-trips. No headers are stored as {@code NULL}.
 *
 * <p>Threading: stateless.
 */
final class HeaderCodec {

	private HeaderCodec() {
	}

	/**
	 * Encodes headers, sorted by key.
	 * @param headers the headers, possibly empty
	 * @return the text, or {@code null} when there are none
	 */
	static String encode(Map<String, String> headers) {
		if (headers == null || headers.isEmpty()) {
			return null;
		}
		StringBuilder text = new StringBuilder();
		for (Map.Entry<String, String> header : new TreeMap<>(headers).entrySet()) {
			if (text.length() > 0) {
				text.append('\n');
			}
			escape(header.getKey(), text);
			text.append('=');
			escape(header.getValue(), text);
		}
		return text.toString();
	}

	/**
	 * Decodes what {@link #encode(Map)} wrote.
	 * @param text the text or {@code null}
	 * @return the headers, never {@code null}
	 */
	static Map<String, String> decode(String text) {
		if (text == null || text.isEmpty()) {
			return Map.of();
		}
		Map<String, String> headers = new LinkedHashMap<>();
		StringBuilder key = new StringBuilder();
		StringBuilder value = new StringBuilder();
		StringBuilder current = key;
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			if (c == '\\' && i + 1 < text.length()) {
				char next = text.charAt(++i);
				current.append((next == 'n') ? '\n' : (next == 'r') ? '\r' : next);
			}
			else if (c == '=' && current == key) {
				current = value;
			}
			else if (c == '\n') {
				headers.put(key.toString(), value.toString());
				key.setLength(0);
				value.setLength(0);
				current = key;
			}
			else {
				current.append(c);
			}
		}
		headers.put(key.toString(), value.toString());
		return headers;
	}

	private static void escape(String text, StringBuilder out) {
		for (int i = 0; i < text.length(); i++) {
			char c = text.charAt(i);
			switch (c) {
				case '\\' -> out.append("\\\\");
				case '=' -> out.append("\\=");
				case '\n' -> out.append("\\n");
				case '\r' -> out.append("\\r");
				default -> out.append(c);
			}
		}
	}

}
