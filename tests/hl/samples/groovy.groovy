// Groovy / Gradle sample
plugins {
    id 'java'
    id "org.example.plugin" version "1.0"
}

repositories { mavenCentral() }

dependencies {
    implementation 'org.apache.commons:commons-lang3:3.12.0'
    testImplementation "junit:junit:${junitVersion}"
}

class Greeter {
    String name
    def greet() { "Hello, ${name}!" }
}

def items = [1, 2, 3].collect { it * 2 }.findAll { it > 2 }
println new Greeter(name: 'x').greet() + items + 0x1F
/* block */
task hello {
    doLast { println 'hi' }
}
