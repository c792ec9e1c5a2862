package io.distlock.docs;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A fenced code block of a Markdown page, with the HTML comment on the line before it that says
 * where it comes from: {@code <!-- source: path/to/File.java#tag -->} (a region of a file of
 * this repository, or the whole file without {@code #tag}), or
 * {@code <!-- not-a-source: why -->} for a block that is not cut from a file.
 *
 * @param line the 1-based line of the opening fence
 * @param language the fence's language, such as {@code java}, or empty
 * @param marker the comment before the block, or {@code null}
 * @param text the block's lines, joined with {@code \n}
 */
record CodeBlock(int line, String language, String marker, String text) {

	private static final Pattern FENCE = Pattern.compile("^```(\\S*)\\s*$");

	private static final Pattern SOURCE = Pattern.compile("^<!-- source: (\\S+?)(?:#(\\S+))? -->$");

	private static final Pattern NOT_A_SOURCE = Pattern.compile("^<!-- not-a-source: .+ -->$");

	/** The languages whose blocks a user copies into a project, and which must come from a source. */
	static final List<String> COPIED = List.of("java", "xml", "yaml", "yml", "properties", "kotlin");

	static List<CodeBlock> parse(String markdown) {
		List<String> lines = markdown.lines().toList();
		List<CodeBlock> blocks = new ArrayList<>();
		for (int i = 0; i < lines.size(); i++) {
			Matcher fence = FENCE.matcher(lines.get(i));
			if (!fence.matches()) {
				continue;
			}
			String marker = (i > 0 && lines.get(i - 1).startsWith("<!--")) ? lines.get(i - 1).strip() : null;
			int end = i + 1;
			while (end < lines.size() && !lines.get(end).startsWith("```")) {
				end++;
			}
			blocks.add(new CodeBlock(i + 1, fence.group(1), marker, String.join("\n", lines.subList(i + 1, end))));
			i = end;
		}
		return blocks;
	}

	boolean isSourced() {
		return this.marker != null && SOURCE.matcher(this.marker).matches();
	}

	boolean isNotASource() {
		return this.marker != null && NOT_A_SOURCE.matcher(this.marker).matches();
	}

	boolean mustBeSourced() {
		return COPIED.contains(this.language);
	}

	/**
	 * Return the file the block is cut from, relative to the repository's root.
	 */
	String sourcePath() {
		Matcher source = SOURCE.matcher(this.marker);
		if (!source.matches()) {
			throw new IllegalStateException("Not a source marker: " + this.marker);
		}
		return source.group(1);
	}

	/**
	 * Return the tag of the region the block is cut from, or {@code null} for the whole file.
	 */
	String sourceTag() {
		Matcher source = SOURCE.matcher(this.marker);
		return source.matches() ? source.group(2) : null;
	}

}
