package io.distlock.docs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The anchors GitHub gives the headings of a Markdown page, for links such as
 * {@code docs/annotation.md#composed-annotations}: the heading's text without its Markdown
 * (code spans, links), lower-cased, without punctuation, spaces turned into hyphens; a repeated
 * one gets {@code -1}, {@code -2}, ... Headings inside fenced code blocks are not headings.
 */
final class Anchors {

	private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

	private static final Pattern LINK = Pattern.compile("\\[([^\\]]*)\\]\\([^)]*\\)");

	private Anchors() {
	}

	/**
	 * Return the anchors of a page's headings, in order.
	 */
	static List<String> of(String page) {
		List<String> anchors = new ArrayList<>();
		Map<String, Integer> seen = new HashMap<>();
		boolean fenced = false;
		for (String line : page.lines().toList()) {
			if (line.startsWith("```")) {
				fenced = !fenced;
				continue;
			}
			Matcher heading = HEADING.matcher(line);
			if (!fenced && heading.matches()) {
				String anchor = slug(heading.group(1));
				int count = seen.merge(anchor, 1, Integer::sum);
				anchors.add((count == 1) ? anchor : anchor + "-" + (count - 1));
			}
		}
		return anchors;
	}

	private static String slug(String heading) {
		String text = LINK.matcher(heading.replace("`", "")).replaceAll("$1");
		return text.strip()
			.toLowerCase(Locale.ROOT)
			.replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
			.replace(' ', '-');
	}

}
