import Arbor

let root = Greetings.root()
let session = try root.branch(SessionScope.self, context: Session(user: "ann"))
let greeter: Greeter = try session.instance()
greeter.greet()
