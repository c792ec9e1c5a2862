package io.distlock.docs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the README a landing page: short, linking every page under {@code docs/}, and no link in
 * the README or in {@code docs/} that leads nowhere: neither to a file nor to a heading
 * ({@code #anchor}) that does not exist.
 */
class DocumentationPagesTests {

	private static final int README_MAX_LINES = 250;

	private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

	@Test
	void theReadmeIsAtMost250Lines() {
		assertThat(Documentation.read(Documentation.README).lines().count()).isLessThanOrEqualTo(README_MAX_LINES);
	}

	@Test
	void theReadmeLinksEveryDocsPage() {
		String readme = Documentation.read(Documentation.README);
		List<Path> pages = Documentation.docsPages();
		assertThat(pages).isNotEmpty();
		for (Path page : pages) {
			assertThat(readme).as("README.md links " + Documentation.name(page))
				.contains("](" + Documentation.name(page) + ")");
		}
	}

	@Test
	void everyRelativeLinkLeadsToAFile() {
		List<String> broken = new ArrayList<>();
		for (Link link : links()) {
			String target = link.target();
			if (target.startsWith("http") || target.startsWith("#") || target.startsWith("mailto:")) {
				continue;
			}
			String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
			if (!Files.exists(link.page().getParent().resolve(file))) {
				broken.add(link.toString());
			}
		}
		assertThat(broken).as("links to files that do not exist").isEmpty();
	}

	@Test
	void everyAnchorLeadsToAHeading() {
		List<String> broken = new ArrayList<>();
		for (Link link : links()) {
			String target = link.target();
			int hash = target.indexOf('#');
			if (target.startsWith("http") || hash < 0) {
				continue;
			}
			String file = target.substring(0, hash);
			Path linked = file.isEmpty() ? link.page() : link.page().getParent().resolve(file);
			if (!Files.isRegularFile(linked) || !linked.toString().endsWith(".md")) {
				continue;
			}
			if (!Anchors.of(Documentation.read(linked)).contains(target.substring(hash + 1))) {
				broken.add(link.toString());
			}
		}
		assertThat(broken).as("links to headings that do not exist").isEmpty();
	}

	@Test
	void anchorsFollowGitHubsRules() {
		// The negative control: a heading's anchor as GitHub makes it, so that a wrong one is found.
		String page = """
				# distlock
				## `@DistributedLock` reference
				## Reactive: `Mono`, `Flux` and `Publisher`
				```bash
				# a comment, not a heading
				```
				## A [linked](other.md) heading
				## Reactive: `Mono`, `Flux` and `Publisher`
				""";
		assertThat(Anchors.of(page)).containsExactly("distlock", "distributedlock-reference",
				"reactive-mono-flux-and-publisher", "a-linked-heading", "reactive-mono-flux-and-publisher-1");
	}

	/** Every link of the README and the pages under {@code docs/}, in the order they stand. */
	private static List<Link> links() {
		List<Link> links = new ArrayList<>();
		for (Path page : Documentation.allPages()) {
			Matcher link = LINK.matcher(Documentation.read(page));
			while (link.find()) {
				links.add(new Link(page, link.group(1)));
			}
		}
		return links;
	}

	/**
	 * A link of a page.
	 * @param page the page that links
	 * @param target what it links to, as written
	 */
	private record Link(Path page, String target) {

		@Override
		public String toString() {
			return Documentation.name(this.page) + " -> " + this.target;
		}

	}

}
