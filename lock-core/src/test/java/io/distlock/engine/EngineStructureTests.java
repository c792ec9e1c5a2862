package io.distlock.engine;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SliceRule;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import org.junit.jupiter.api.Test;

import io.distlock.engine.cycle.Answer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The engine's classes refer to each other one way: no class reaches, through the types it
 * uses, a class that uses it, so that each can be read, and changed, knowing only what lies
 * below it. A class and its nested classes count as one.
 */
class EngineStructureTests {

	@Test
	void engineClassesHaveNoTypeReferenceCycles() {
		JavaClasses engine = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.importPackages(EngineStructureTests.class.getPackageName());
		assertThat(engine).as("the engine's classes").hasSizeGreaterThan(20);
		noCyclesAmongClassesOf(EngineStructureTests.class.getPackageName()).check(engine);
	}

	@Test
	void cycleRuleFindsACycleBetweenTwoClasses() {
		// Negative control: two classes of a test package that use each other.
		String fixture = Answer.class.getPackageName();
		JavaClasses cyclic = new ClassFileImporter().importPackages(fixture);
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> noCyclesAmongClassesOf(fixture).check(cyclic))
			.withMessageContaining("Answer")
			.withMessageContaining("Question");
	}

	private static SliceRule noCyclesAmongClassesOf(String packageName) {
		return SlicesRuleDefinition.slices().assignedFrom(new EachTopLevelClass(packageName)).should().beFreeOfCycles();
	}

	/**
	 * One slice per top-level class of a package, holding its nested classes too; classes of
	 * other packages are left out.
	 */
	private record EachTopLevelClass(String packageName) implements SliceAssignment {

		@Override
		public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
			if (!javaClass.getPackageName().equals(this.packageName)) {
				return SliceIdentifier.ignore();
			}
			String name = javaClass.getName().substring(this.packageName.length() + 1);
			int nested = name.indexOf('$');
			return SliceIdentifier.of((nested < 0) ? name : name.substring(0, nested));
		}

		@Override
		public String getDescription() {
			return "each class of " + this.packageName + " with its nested classes";
		}

	}

}
