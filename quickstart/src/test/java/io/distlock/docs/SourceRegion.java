package io.distlock.docs;

import java.util.ArrayList;
import java.util.List;

/**
 * Cuts what a page shows from a source file: the whole file, or the lines between
 * {@code tag::name[]} and {@code end::name[]} markers (in any comment syntax), without other
 * marker lines, shifted left by their common indentation. Tabs become four spaces, as Markdown
 * readers show them inconsistently.
 */
final class SourceRegion {

	private SourceRegion() {
	}

	static String cut(String source, String tag) {
		List<String> lines = source.replace("\t", "    ").lines().toList();
		List<String> region = new ArrayList<>();
		if (tag == null) {
			region.addAll(lines);
		}
		else {
			int start = indexOf(lines, "tag::" + tag + "[]", 0);
			int end = indexOf(lines, "end::" + tag + "[]", start);
			if (start < 0 || end < 0) {
				throw new IllegalArgumentException("No region 'tag::" + tag + "[]' ... 'end::" + tag + "[]'");
			}
			region.addAll(lines.subList(start + 1, end));
		}
		List<String> kept = region.stream()
			.filter((line) -> !line.contains("tag::") && !line.contains("end::"))
			.map(String::stripTrailing)
			.toList();
		int indent = kept.stream()
			.filter((line) -> !line.isBlank())
			.mapToInt((line) -> line.length() - line.stripLeading().length())
			.min()
			.orElse(0);
		String text = String.join("\n", kept.stream().map((line) -> line.isBlank() ? "" : line.substring(indent)).toList());
		return text.strip().isEmpty() ? "" : text.replaceAll("^\\n+", "").replaceAll("\\n+$", "");
	}

	private static int indexOf(List<String> lines, String marker, int from) {
		for (int i = Math.max(0, from); i < lines.size(); i++) {
			if (lines.get(i).contains(marker)) {
				return i;
			}
		}
		return -1;
	}

}
